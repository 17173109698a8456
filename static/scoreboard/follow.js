/* Pages that follow a table (/tables/<id>/tv/, overlay, the table's tablet) listen to the table's
 * board socket (/ws/boards/?view=table-<id>): the server pushes {"key", "match", "tablet", "last"}
 * whenever what the table shows changes (a call, a move, a result, a W.O.), and once on every
 * (re)connection, so nothing is polled and a change missed while the socket was down is seen
 * when it is back.
 *  - #table-follow (the table's tablet, scoring a match): when the table's tablet should score
 *    another match ("tablet", the current match else the next; a finished match with nothing
 *    after it stays on screen), go back to the table's page, which opens that match;
 *  - #follow (a table's TV, overlay, the table's tablet with nothing to score): when "key" moves,
 *    reload, or go to data-follow-go (the tablet: the page may be the answer to the PIN's POST). */
(function () {
  "use strict";
  if (!window.WebSocket || !window.JSON) return;
  var el = document.getElementById("table-follow"), mine = null;
  if (el) {
    mine = function (d) {
      var want = d.tablet === null ? d.last : d.tablet;
      return String(want) === el.getAttribute("data-follow-match");
    };
  } else {
    el = document.getElementById("follow");
    if (!el) return;
    var key = el.getAttribute("data-follow-key");
    mine = function (d) { return String(d.key) === key; };
  }
  var path = el.getAttribute("data-follow-url"), go = el.getAttribute("data-follow-go");
  var wait = 500, leaving = false;
  var open = function () {
    var ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + path);
    ws.onopen = function () { wait = 500; };
    ws.onmessage = function (e) {
      var d = null;
      try { d = JSON.parse(e.data); } catch (err) { return; }
      if (!d || leaving || mine(d)) return;
      leaving = true;
      if (go) location.assign(go); else location.reload();
    };
    ws.onclose = function () {
      if (leaving) return;
      setTimeout(open, wait);  // back off while the server is away; the first message says all
      wait = Math.min(wait * 2, 8000);
    };
  };
  open();
})();
