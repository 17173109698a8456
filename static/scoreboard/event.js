/* The event hub's tabs: one pushed board holds every view (boards.js replaces it whole), the
   body's data-view says which one shows. A tab changes the view and the address (?view=) without
   a reload, so a shared or reloaded link opens the same view; a #J5 fragment still scrolls to
   its match. The tabs follow the ARIA tabs pattern: one of them in the Tab order, the arrow keys,
   Home and End move to another and show it. Each table card's score, in words (data-say), is
   announced once when a push changes it (the polite live region #score-say). */
(function () {
  "use strict";
  var body = document.body;
  if (body.getAttribute("data-view") === "player") return;
  function tabs() { return Array.prototype.slice.call(document.querySelectorAll(".hub-tabs [role=tab]")); }
  // the views are panels of the tabs; the board's text is the jumbotron's too, so the roles are set here
  function panels() {
    tabs().forEach(function (a) {
      var panel = document.getElementById(a.getAttribute("aria-controls"));
      if (panel) { panel.setAttribute("role", "tabpanel"); panel.setAttribute("aria-labelledby", a.id); }
    });
  }
  function show(view) {
    body.setAttribute("data-view", view);
    tabs().forEach(function (a) {
      var on = a.getAttribute("data-view") === view;
      a.setAttribute("aria-selected", on ? "true" : "false");
      a.tabIndex = on ? 0 : -1;
    });
  }
  function go(a) {
    var view = a.getAttribute("data-view");
    var q = new URLSearchParams(location.search);
    q.set("view", view);
    history.pushState({view: view}, "", location.pathname + "?" + q.toString());
    show(view);
  }
  document.addEventListener("click", function (e) {
    var a = e.target.closest(".hub-tabs a[data-view]");
    if (!a || e.metaKey || e.ctrlKey || e.shiftKey) return;
    e.preventDefault();
    go(a);
  });
  document.addEventListener("keydown", function (e) {
    var a = e.target.closest && e.target.closest(".hub-tabs [role=tab]");
    if (!a) return;
    var all = tabs(), i = all.indexOf(a), n = all.length, to = -1;
    if (e.key === "ArrowRight" || e.key === "ArrowDown") to = (i + 1) % n;
    else if (e.key === "ArrowLeft" || e.key === "ArrowUp") to = (i - 1 + n) % n;
    else if (e.key === "Home") to = 0;
    else if (e.key === "End") to = n - 1;
    else if (e.key === " ") to = i;  // Space selects a tab as Enter does
    if (to < 0) return;
    e.preventDefault();
    all[to].focus();
    go(all[to]);
  });
  window.addEventListener("popstate", function () {
    show(new URLSearchParams(location.search).get("view") || "tables");
  });

  // the scores of the table cards as last seen: a push that changes one says it once
  var say = document.getElementById("score-say"), said = scores();
  function scores() {
    var out = {};
    Array.prototype.forEach.call(document.querySelectorAll(".ev-table[data-say]"), function (el) {
      out[el.getAttribute("data-table")] = el.getAttribute("data-say");
    });
    return out;
  }
  document.addEventListener("board:swapped", function () {
    panels();
    var now = scores(), news = [];
    Object.keys(now).forEach(function (t) { if (now[t] && now[t] !== said[t]) news.push(now[t]); });
    said = now;
    if (say && news.length) say.textContent = news.join(". ");
  });

  panels();
  show(body.getAttribute("data-view") || "tables");
  // a #J5 link opens the view that holds that match
  if (location.hash.length > 1) {
    var el = document.getElementById(location.hash.slice(1));
    var frag = el && el.closest(".ev-frag");
    if (frag && !new URLSearchParams(location.search).get("view")) show(frag.getAttribute("data-frag"));
  }
})();
