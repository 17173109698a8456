/* The venue's boards (/ and /tv/), pushed: one socket brings the whole board whenever it changes
   (scoreboard/live/boards.py). No polling. While the socket is down the page says so, and it
   reconnects with a capped, jittered backoff; the first message after a reconnect is the board
   as it is then, so nothing stale stays on screen once the link is back. The address carries the
   digest of the board the page printed (&have=): the server does not send that board again. Once
   a board has come by push the page holds another one, so a reconnect asks for the board whole. */
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
    if (!old) return;
    // what the organiser is editing stays as he left it (the desk's lineup): a push from another
    // table must not close the panel or reset the selects under his finger. An open panel stays
    // open; a form he changed and has not saved (data-dirty) is kept whole; the rest is new.
    Array.prototype.forEach.call(old.querySelectorAll("details[data-keep][open][id]"), function (el) {
      var twin = fresh.querySelector("#" + CSS.escape(el.id));
      if (twin) twin.open = true;
    });
    Array.prototype.forEach.call(old.querySelectorAll("[data-dirty][id]"), function (el) {
      var twin = fresh.querySelector("#" + CSS.escape(el.id));
      if (twin) twin.replaceWith(el);
    });
    old.replaceWith(fresh);
    document.dispatchEvent(new CustomEvent("board:swapped"));  // pages that lay out their board again
  }

  function connect() {
    var ws = new WebSocket(url);
    ws.onopen = function () { delay = 500; if (status) status.hidden = true; };
    ws.onmessage = function (e) {
      if (status) status.hidden = true;
      url = url.replace(/([?&])have=[0-9a-f]*(&|$)/, function (m, a, b) { return b ? a : ""; });
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
