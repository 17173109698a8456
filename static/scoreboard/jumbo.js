/* The jumbotron's views: the pushed board (boards.js) holds each of them; the body's data-jv
   says which one shows. ?rotate=tables,bracket,standings,called&every=20 turns through the
   listed views every N seconds, skipping one that has nothing to show (no groups, no bracket). */
(function () {
  "use strict";
  var body = document.body;

  /* Names fit their box: a name too long for its card shrinks, to 60 % at most; one still too
     long then takes two lines (a card's name, at that size). The names of one card or bracket
     box take the smallest size of them, so neither player looks the lesser. A tester saw
     "Ana S…" and "Eduar…" in cards with room to spare. */
  var NAMES = ".jt-name, .jv-event .ev-line .ev-side";
  function fitNames() {
    var boxes = new Map();
    Array.prototype.forEach.call(document.querySelectorAll(NAMES), function (el) {
      el.style.fontSize = "";
      el.classList.remove("wrapped");
      if (!el.offsetParent) return;  // a view not shown now: fitted when it shows
      var size = parseFloat(getComputedStyle(el).fontSize), min = size * 0.6;
      while (el.scrollWidth > el.clientWidth + 1 && size > min) {
        size *= 0.95;
        el.style.fontSize = size + "px";
      }
      if (el.scrollWidth > el.clientWidth + 1 && el.classList.contains("jt-name")) el.classList.add("wrapped");
      var box = el.closest(".jt, .ev-tie-box") || el;
      boxes.set(box, Math.min(boxes.has(box) ? boxes.get(box) : Infinity, size));
    });
    boxes.forEach(function (size, box) {
      Array.prototype.forEach.call(box.querySelectorAll(NAMES), function (el) {
        if (el.offsetParent) el.style.fontSize = size + "px";
      });
    });
  }
  window.jumboFit = fitNames;
  fitNames();
  document.addEventListener("board:swapped", fitNames);
  window.addEventListener("resize", fitNames);
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(fitNames);
  new MutationObserver(fitNames).observe(body, {attributes: true, attributeFilter: ["data-jv"]});

  var list = (body.getAttribute("data-rotate") || "").split(",").filter(Boolean);
  if (list.length < 2) return;
  var every = Math.max(5, parseInt(body.getAttribute("data-every"), 10) || 20) * 1000;
  var at = Math.max(0, list.indexOf(body.getAttribute("data-jv")));
  setInterval(function () {
    for (var k = 1; k <= list.length; k++) {
      var next = list[(at + k) % list.length];
      var el = document.querySelector('.jv[data-jv="' + next + '"]');
      if (el && !el.hasAttribute("data-empty")) {
        at = (at + k) % list.length;
        body.setAttribute("data-jv", next);
        return;
      }
    }
  }, every);
})();
