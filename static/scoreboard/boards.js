/* The venue's boards (/ and /tv/), pushed: one socket brings the whole board whenever it changes
   (scoreboard/live/boards.py). No polling. While the socket is down the page says so, and it
   reconnects with a capped, jittered backoff; the first message after a reconnect is the board
   as it is then, so nothing stale stays on screen once the link is back. */
(function () {
  "use strict";
  var path = document.body.getAttribute("data-board-ws");
  if (!path || !window.WebSocket) return;
  var status = document.getElementById("board-status");
  var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
  var delay = 500;

  function swap(html) {
    var tpl = document.createElement("template");
    tpl.innerHTML = html.trim();
    var fresh = tpl.content.firstElementChild;
    var old = fresh && fresh.id && document.getElementById(fresh.id);
    if (old) old.replaceWith(fresh);
  }

  function connect() {
    var ws = new WebSocket(url);
    ws.onopen = function () { delay = 500; };
    ws.onmessage = function (e) {
      if (status) status.hidden = true;
      swap(e.data);
    };
    ws.onclose = function () {
      if (status) status.hidden = false;
      setTimeout(connect, delay / 2 + Math.random() * delay);
      delay = Math.min(delay * 2, 10000);
    };
  }
  connect();
})();
