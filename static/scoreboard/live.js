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
  // A tablet's socket id, new on each page load: its taps carry it (referee.js), and the server
  // does not push their changes back to this socket, which draws each tap's answer already.
  if (wsPath && /[?&]view=referee(&|$)/.test(wsPath)) {
    var sid = window.crypto && window.crypto.randomUUID ? window.crypto.randomUUID()
      : Date.now().toString(36) + Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);
    body.setAttribute("data-socket-id", sid);
    wsPath += "&sid=" + encodeURIComponent(sid);
  }
  var refreshUrl = body.getAttribute("data-live-refresh");
  var conn = document.getElementById("conn");

  function shownSeq() {
    var el = document.getElementById("live-seq");
    return el ? parseInt(el.getAttribute("data-seq"), 10) : -1;
  }
  /* When what is shown was drawn (µs, the server's clock): a match drawn again at the seq shown
     (a rename, a W.O.: no new event) is taken when it was drawn later. */
  function shownRev() {
    var el = document.getElementById("live-seq");
    return el ? +(el.getAttribute("data-rev") || 0) : 0;
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
    var again = !fresh && seq === cur && +(seqEl.getAttribute("data-rev") || 0) > shownRev();
    Array.prototype.slice.call(t.content.children).forEach(function (el) {
      if (!el.id) return;
      if (el.hasAttribute("data-live") && !fresh && !again) return;
      if (el.hasAttribute("data-ver") && !newerVer(el)) return;
      swapIn(el);
    });
    // the same seq drawn again: its texts are fitted, nothing pops up again (no new change)
    if (again) document.dispatchEvent(new CustomEvent("live:restated", {detail: {seq: seq}}));
    if (!fresh) return "old";
    document.dispatchEvent(new CustomEvent("live:applied", {detail: {seq: seq}}));
    return cur >= 0 && seq > cur + 1 ? "gap" : "ok";
  }
  window.liveApply = apply;

  /* The overlay's switches (control endpoint) come at any seq; of two, the higher data-ver wins. */
  function newerVer(el) {
    var old = document.getElementById(el.id);
    return !old || +el.getAttribute("data-ver") >= +(old.getAttribute("data-ver") || -1);
  }

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
  // the referee tablet reports its state over its socket (tablet-status.js)
  window.liveSend = function (obj) {
    if (ws && ws.readyState === 1) { ws.send(JSON.stringify(obj)); return true; }
    return false;
  };
  if (wsPath) {
    connect();
    window.addEventListener("online", reconnectNow);
    document.addEventListener("visibilitychange", function () {
      if (!document.hidden) reconnectNow();
    });
  }

  /* TV and overlay: text marked data-fit shrinks until it fits its box (a 40-character name, a
     long description), and a box marked data-fit-box shrinks its whole content (every banner at
     once) until it fits its row; nothing is cut off and nothing pushes the page. */
  function fitAll() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-fit]"), function (el) {
      el.style.fontSize = "";
      el.classList.remove("fit-wrap");
      /* --fit-min: the least share of its size the text shrinks to on one line (or a size in
         px: "18px"); with --fit-lines: 2 it then takes a second line at that size (its box has
         room for two), shrinking again only if two lines do not fit (the TV's last action: 26 px
         at 1080p, not 19) or a word is wider than the box; with --fit-wrap-large: 1 the lines
         start again from its own size, as large as `lines` lines hold (a name on a phone) */
      var cs = getComputedStyle(el), natural = parseFloat(cs.fontSize), size = natural;
      var fitMin = cs.getPropertyValue("--fit-min").trim();
      var min = /px$/.test(fitMin) ? Math.min(parseFloat(fitMin), natural) : natural * (parseFloat(fitMin) || 0.3);
      var lines = parseInt(cs.getPropertyValue("--fit-lines"), 10) || 1;
      while (el.scrollWidth > el.clientWidth + 1 && size > min) {
        size = Math.max(size * 0.93, min);
        el.style.fontSize = size + "px";
      }
      if (lines < 2 || el.scrollWidth <= el.clientWidth + 1) return;
      el.classList.add("fit-wrap");
      if (cs.getPropertyValue("--fit-wrap-large").trim() === "1") {
        size = natural;
        el.style.fontSize = size + "px";
      }
      while ((el.scrollHeight > (lines + 0.5) * parseFloat(getComputedStyle(el).lineHeight)  // more than `lines` lines (scrollHeight is rounded: +1 px was too little at 4K)
              || el.scrollWidth > el.clientWidth + 1) && size > natural * 0.3) {
        size *= 0.93;
        el.style.fontSize = size + "px";
      }
    });
    /* an overlay name on two lines also keeps within its box (the bar's fixed height, the club
       under it in the full layout) and breaks only between words */
    Array.prototype.forEach.call(document.querySelectorAll(".ov-name.fit-wrap"), function (el) {
      var box = el.parentElement, size = parseFloat(getComputedStyle(el).fontSize), min = size * 0.3;
      while ((box.scrollHeight > box.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1) && size > min) {
        size *= 0.96;
        el.style.fontSize = size + "px";
      }
    });
    /* texts of one data-fit-group (the two players' names) take the smallest size of the group:
       when one name is long both shrink together, so neither player looks the lesser */
    var groups = {};
    Array.prototype.forEach.call(document.querySelectorAll("[data-fit-group]"), function (el) {
      var g = el.getAttribute("data-fit-group");
      (groups[g] = groups[g] || []).push(el);
    });
    Object.keys(groups).forEach(function (g) {
      var sizes = groups[g].map(function (el) { return parseFloat(getComputedStyle(el).fontSize); });
      var min = Math.min.apply(null, sizes);
      groups[g].forEach(function (el) { el.style.fontSize = min + "px"; });
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-fit-box]"), function (el) {
      el.style.fontSize = "";
      var size = parseFloat(getComputedStyle(el).fontSize), min = size * 0.4;
      while ((el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1) && size > min) {
        size *= 0.93;
        el.style.fontSize = size + "px";
      }
    });
  }

  /* Match and frame clocks: elapsed time since the first event (data-clock-since), stopped at
     data-clock-stop; the server's clock is the reference (data-server-now on <body>). */
  var skew = 0;
  var serverNow = Date.parse(body.getAttribute("data-server-now") || "");
  if (!isNaN(serverNow)) skew = serverNow - Date.now();
  function hms(ms) {
    var t = Math.max(0, Math.floor(ms / 1000)), h = Math.floor(t / 3600), m = Math.floor(t / 60) % 60, s = t % 60;
    return (h ? h + ":" + (m < 10 ? "0" : "") : "") + m + ":" + (s < 10 ? "0" : "") + s;
  }
  function tick() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-clock-since]"), function (el) {
      var since = Date.parse(el.getAttribute("data-clock-since"));
      if (isNaN(since)) { el.textContent = ""; return; }
      var stop = Date.parse(el.getAttribute("data-clock-stop") || "");
      el.textContent = hms((isNaN(stop) ? Date.now() + skew : stop) - since);
    });
  }

  /* Overlay pop-ups: the change names what it may pop up (#ov-popsrc), most important first; the
     URL options say which kinds to show, for how long, and the break milestones. One pop-up at a
     time: the newest replaces the one up. A sticky one (a choice or a free ball pending) leaves at
     the next change, which settles it; the others after their seconds. Only live changes pop up,
     never the state a page opens on. */
  var opts = document.getElementById("display-opts");
  var popHost = document.getElementById("ov-pops");
  function optList(name) {
    var v = opts ? opts.getAttribute(name) || "" : "";
    return v ? v.split(",") : [];
  }
  function dropPop(el) {
    el.classList.remove("in");
    el.classList.add("out");  // gone for the next change even while it fades
    setTimeout(function () { el.remove(); }, 400);
  }
  function showPops() {
    var src = document.getElementById("ov-popsrc");
    if (!src || !popHost) return;
    var allowed = optList("data-popups"), kinds = (src.getAttribute("data-kinds") || "").split(",");
    var sticky = (src.getAttribute("data-sticky") || "").split(",");
    var seconds = parseFloat(opts && opts.getAttribute("data-popup-seconds")) || 6;
    var before = +src.getAttribute("data-break-before"), now = +src.getAttribute("data-break");
    var show = null;
    kinds.some(function (k) {
      if (k === "break") {
        if (src.getAttribute("data-max") === "1" && allowed.indexOf("max") >= 0) { show = "max"; return true; }
        var passed = optList("data-milestones").some(function (m) { return before < +m && +m <= now; });
        if (passed && allowed.indexOf("break") >= 0) { show = "break"; return true; }
      } else if (k && allowed.indexOf(k) >= 0) {
        show = k;
        return true;
      }
      return false;
    });
    var tpl = show && src.querySelector('[data-pop="' + show + '"]');
    Array.prototype.forEach.call(popHost.querySelectorAll(".pop:not(.out)"), function (old) {
      if (tpl || sticky.indexOf(old.getAttribute("data-pop")) >= 0) dropPop(old);
    });
    if (!tpl) return;
    var el = tpl.cloneNode(true);
    popHost.appendChild(el);
    requestAnimationFrame(function () { el.classList.add("in"); });
    if (sticky.indexOf(show) < 0) setTimeout(function () { if (el.parentNode) dropPop(el); }, seconds * 1000);
  }

  var opened = false;
  document.addEventListener("live:applied", function () {
    fitAll();
    tick();
    if (opened) showPops();
  });
  document.addEventListener("live:restated", function () { fitAll(); tick(); });
  // the table's TV between matches (table_idle.html) fits its names too, with no socket
  if (document.getElementById("tv-live") || document.getElementById("ov-live") || document.querySelector(".idle-board")) {
    fitAll();
    tick();
    setInterval(tick, 1000);
    window.addEventListener("resize", fitAll);
    if (document.fonts && document.fonts.ready) document.fonts.ready.then(fitAll);
    // The socket's first message is the state the page already shows (or newer): pop-ups start
    // with the changes after it.
    setTimeout(function () { opened = true; }, 0);
  }

  /* Every htmx POST carries an idempotency key; the foul dialog opens when its form arrives. On
     the referee tablet the key is given by referee.js's one way in for a tap (its order stated
     there), not by a listener of its own here. */
  function newKey() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return Date.now().toString(36) + Math.random().toString(36).slice(2) + Math.random().toString(36).slice(2);
  }
  window.liveKey = newKey;
  if (!document.getElementById("ref-live")) {
    document.addEventListener("htmx:configRequest", function (e) {
      if (e.detail.verb === "post") e.detail.parameters["key"] = newKey();
    });
  }
  document.addEventListener("htmx:afterSwap", function (e) {
    if (e.detail.target && e.detail.target.id === "foul-body") {
      var dlg = document.getElementById("foul-dialog");
      if (dlg && !dlg.open) dlg.showModal();
    }
  });
})();
