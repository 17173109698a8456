/* Live pages: keep the page in step with the match over a websocket.
 *
 * Every message is a set of top-level elements replacing the elements with the same id; the
 * elements marked data-live are the match's state at the seq carried by #live-seq. A message older
 * than what is shown is ignored; a seq gap fetches the current fragments over HTTP. The socket is
 * reopened after ANY close (htmx's ws extension gives up after a clean 1000/1001, which Daphne's
 * own time-out sends), with capped, jittered backoff; the server sends the current state on every
 * connect, so a reconnect also catches up. The tablet's own htmx answers go through the same path.
 */
(function () {
  "use strict";
  var body = document.body;
  var wsPath = body.getAttribute("data-live-ws");
  var refreshUrl = body.getAttribute("data-live-refresh");
  var conn = document.getElementById("conn");

  function shownSeq() {
    var el = document.getElementById("live-seq");
    return el ? parseInt(el.getAttribute("data-seq"), 10) : -1;
  }

  function swapIn(el) {
    var old = document.getElementById(el.id);
    if (!old) return;
    old.replaceWith(el);
    if (window.htmx) window.htmx.process(el);
  }

  /* Apply a message; returns "old", "gap" or "ok". */
  function apply(html) {
    var t = document.createElement("template");
    t.innerHTML = html;
    var seqEl = t.content.querySelector("#live-seq");
    var seq = seqEl ? parseInt(seqEl.getAttribute("data-seq"), 10) : NaN;
    var cur = shownSeq();
    var fresh = seq > cur;
    Array.prototype.slice.call(t.content.children).forEach(function (el) {
      if (!el.id) return;
      if (el.hasAttribute("data-live") && !fresh) return;
      swapIn(el);
    });
    if (!fresh) return "old";
    document.dispatchEvent(new CustomEvent("live:applied", {detail: {seq: seq}}));
    return cur >= 0 && seq > cur + 1 ? "gap" : "ok";
  }
  window.liveApply = apply;

  function refresh() {
    if (!refreshUrl) return;
    fetch(refreshUrl, {credentials: "same-origin", cache: "no-store"})
      .then(function (r) { return r.ok ? r.text() : ""; })
      .then(function (text) { if (text) apply(text); })
      .catch(function () {});
  }

  function status(up) {
    document.dispatchEvent(new CustomEvent("live:status", {detail: {up: up}}));  // referee.js listens
    if (!conn) return;
    conn.className = "conn " + (up ? "up" : "down");
    conn.textContent = up ? "" : (document.documentElement.lang.indexOf("en") === 0
      ? "disconnected — reconnecting" : "desconectado — reconectando");
  }

  var delay = 500, timer = null, ws = null;
  function connect() {
    timer = null;
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    ws = new WebSocket(scheme + location.host + wsPath);
    ws.onopen = function () { delay = 500; status(true); };
    ws.onmessage = function (e) { if (apply(e.data) === "gap") refresh(); };
    ws.onclose = function () {
      status(false);
      ws = null;
      var wait = Math.min(delay, 10000) * (0.5 + Math.random());
      delay = Math.min(delay * 2, 10000);
      if (!timer) timer = setTimeout(connect, wait);
    };
  }
  function reconnectNow() {
    if (ws) return;
    if (timer) clearTimeout(timer);
    delay = 500;
    connect();
  }
  if (wsPath) {
    connect();
    window.addEventListener("online", reconnectNow);
    document.addEventListener("visibilitychange", function () {
      if (!document.hidden) reconnectNow();
    });
  }

  /* The referee tablet: every htmx POST carries an idempotency key (taps themselves are sent and
     applied by the queue in referee.js), and the foul dialog opens when its form arrives. */
  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return Date.now().toString(36) + Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);
  }
  document.addEventListener("htmx:configRequest", function (e) {
    if (e.detail.verb === "post") e.detail.parameters["key"] = newKey();
  });
  document.addEventListener("htmx:afterSwap", function (e) {
    if (e.detail.target && e.detail.target.id === "foul-body") {
      var dlg = document.getElementById("foul-dialog");
      if (dlg && !dlg.open) dlg.showModal();
    }
  });
})();
