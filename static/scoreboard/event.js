/* The event hub's tabs: one pushed board holds every view (boards.js replaces it whole), the
   body's data-view says which one shows. A tab changes the view and the address (?view=) without
   a reload, so a shared or reloaded link opens the same view; a #J5 fragment still scrolls to
   its match. */
(function () {
  "use strict";
  var body = document.body;
  if (body.getAttribute("data-view") === "player") return;
  function show(view) {
    body.setAttribute("data-view", view);
    Array.prototype.forEach.call(document.querySelectorAll(".hub-tabs a"), function (a) {
      if (a.getAttribute("data-view") === view) a.setAttribute("aria-current", "page");
      else a.removeAttribute("aria-current");
    });
  }
  document.addEventListener("click", function (e) {
    var a = e.target.closest(".hub-tabs a[data-view]");
    if (!a || e.metaKey || e.ctrlKey || e.shiftKey) return;
    e.preventDefault();
    var view = a.getAttribute("data-view");
    var q = new URLSearchParams(location.search);
    q.set("view", view);
    history.pushState({view: view}, "", location.pathname + "?" + q.toString());
    show(view);
  });
  window.addEventListener("popstate", function () {
    show(new URLSearchParams(location.search).get("view") || "tables");
  });
  // a #J5 link opens the view that holds that match
  if (location.hash.length > 1) {
    var el = document.getElementById(location.hash.slice(1));
    var frag = el && el.closest(".ev-frag");
    if (frag && !new URLSearchParams(location.search).get("view")) show(frag.getAttribute("data-frag"));
  }
})();
