/* The match page (/matches/<id>/), pushed: the page listens on the match's feed socket, whose
 * every message carries the match's seq. When a message names a seq newer than the statistics
 * shown (a tap, an undo: each is a new seq), the page fetches ?partial=stats once (the server
 * keeps it per seq and language, so a room of phones costs one render) and swaps it in. A burst
 * of taps costs one fetch at a time, the last one bringing the newest seq. No polling: a quiet
 * match costs the open socket only. The socket's first message on every (re)connect is the state
 * then, so what was missed while it was down comes with one fetch, and only if the seq moved.
 * The socket stays open once the match is over: the referee may undo a mistaken concession, and
 * a page left showing "over" would mislead. A message of the seq already announced, without an
 * event, is the match shown anew with no new event (a player renamed, a W.O. recorded at the
 * desk: the server sends every socket the same seq again): the page fetches the partial once more
 * and takes it even at the seq it shows. Without JavaScript the page is simply the page as
 * loaded (a page loaded after the end opens no socket). Each new score is said once, in words,
 * in the polite live region #score-say (the partial's data-say).
 */
(function () {
  "use strict";
  var body = document.body;
  var path = body.getAttribute("data-stats-ws"), url = body.getAttribute("data-stats-url");
  if (!path || !url || !window.WebSocket || !window.fetch) return;
  var wsUrl = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + path;
  var announced = -1, loading = false, ws = null, timer = null, delay = 500, retry = 1000;
  var restated = false;  // the seq shown was shown anew (a rename, a W.O.): fetch it again

  function shown() {
    var el = document.getElementById("match-stats");
    return el ? parseInt(el.getAttribute("data-seq"), 10) : -1;
  }

  function later(ms) {
    setTimeout(load, ms * (0.5 + Math.random()));
  }

  function load() {
    if (loading || !(announced > shown() || restated)) return;
    loading = true;
    var before = shown(), again = restated;
    restated = false;
    fetch(url, {credentials: "same-origin", cache: "no-cache"}).then(function (r) {
      if (!r.ok) throw r;
      return r.text();
    }).then(function (html) {
      loading = false;
      var t = document.createElement("template");
      t.innerHTML = html.trim();
      var fresh = t.content.querySelector("#match-stats"), old = document.getElementById("match-stats");
      var seq = fresh ? +fresh.getAttribute("data-seq") : -1;
      var moved = fresh && old && (seq > before || (again && seq === before));
      if (moved) {
        var was = old.querySelector("[data-say]"), now = fresh.querySelector("[data-say]");
        old.replaceWith(fresh);
        // a score change is said once, in words, to a screen reader (the polite live region)
        var say = document.getElementById("score-say");
        if (say && now && (!was || was.getAttribute("data-say") !== now.getAttribute("data-say")))
          say.textContent = now.getAttribute("data-say");
        retry = 1000;
        // the heading is outside the partial: after a rename it takes the partial's names
        var names = Array.prototype.map.call(fresh.querySelectorAll(".ms-name"), function (e) { return e.textContent; });
        var h1 = document.querySelector(".venue-head h1");
        if (again && h1 && names.length === 2) h1.textContent = names.join(" × ");
      }
      // a newer seq announced (or the match shown anew) while this one was fetched: one more
      // (load returns at once when there is none); an answer that brought nothing new (it
      // should not happen) is asked again only after a growing wait
      if (moved || restated) load();
      else if (announced > shown()) { later(retry); retry = Math.min(retry * 2, 30000); }
    }, function (r) {
      loading = false;
      // busy (503) or limited (429): again after the server's Retry-After, else a growing wait
      var after = r && r.headers ? parseFloat(r.headers.get("Retry-After")) : NaN;
      later(after > 0 ? after * 1000 : retry);
      retry = Math.min(retry * 2, 30000);
    });
  }

  function connect() {
    timer = null;
    ws = new WebSocket(wsUrl);
    ws.onopen = function () { delay = 500; body.setAttribute("data-stats-live", ""); };
    ws.onmessage = function (e) {
      var msg, seq;
      try { msg = JSON.parse(e.data); seq = msg.seq; } catch (err) { return; }
      if (typeof seq !== "number" || seq < announced) return;
      if (seq === announced) {
        if (msg.event !== undefined || seq !== shown()) return;  // a repeat, or still on its way
        restated = true;
        if (!loading) setTimeout(load, Math.random() * 200);
        return;
      }
      announced = seq;
      // a room of phones gets the same message at once: spread their fetches a little
      if (!loading && seq > shown()) setTimeout(load, Math.random() * 200);
    };
    ws.onclose = function () {
      ws = null;
      body.removeAttribute("data-stats-live");
      if (timer) return;
      timer = setTimeout(connect, Math.min(delay, 10000) * (0.5 + Math.random()));
      delay = Math.min(delay * 2, 10000);
    };
  }
  function reconnectNow() {
    if (ws) return;
    if (timer) clearTimeout(timer);
    delay = 500;
    connect();
  }
  connect();
  window.addEventListener("online", reconnectNow);
  document.addEventListener("visibilitychange", function () { if (!document.hidden) reconnectNow(); });
})();
