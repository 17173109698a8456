/* The table's tablet follows its table (/tables/<id>/referee/ logged in with the table PIN):
 * while it scores a match, it asks the table which match its tablet should score now
 * (/tables/<id>/now/: "tablet", the current match else the next; "last", the last result) and,
 * when that is another match (this one was moved to another table, or it ended and the table's
 * next match was called), goes back to the table's page, which opens that match. A finished
 * match with nothing after it stays on screen. */
(function () {
  "use strict";
  var el = document.getElementById("table-follow");
  if (!el || window.fetch === undefined) return;
  var url = el.getAttribute("data-follow-url"), go = el.getAttribute("data-follow-go");
  var match = el.getAttribute("data-follow-match");
  setInterval(function () {
    fetch(url, {cache: "no-store", credentials: "same-origin"})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (d) {
        if (!d) return;
        var want = d.tablet === null ? d.last : d.tablet;
        if (String(want) !== match) location.assign(go);
      })
      .catch(function () {});
  }, 2000);
})();
