/* The jumbotron's views: the pushed board (boards.js) holds each of them; the body's data-jv
   says which one shows. ?rotate=tables,bracket,standings,called&every=20 turns through the
   listed views every N seconds, skipping one that has nothing to show (no groups, no bracket). */
(function () {
  "use strict";
  var body = document.body;
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
