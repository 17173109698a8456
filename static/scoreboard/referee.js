/* Referee tablet: every tap goes through a small queue kept in localStorage, so short Wi-Fi drops
 * lose nothing and a reload keeps what is waiting.
 *
 * A tap (a POST of the tablet's controls or the foul dialog's "confirm") is taken from htmx before
 * it is sent and appended to the queue with its idempotency key (added by live.js) and the seq it
 * was made against: the seq on screen for the first tap, one more than the previous queued tap's
 * for each later one. The queue is sent in order, one tap at a time:
 *  - 200: the answer's fragments are applied (like a socket message) and the next tap is sent;
 *  - no answer (network error, time-out) or 429/5xx: the tap stays at the head of the queue and is
 *    sent again, with the same key, when the network is back (the server stores a key once, so a
 *    tap that did arrive is not entered twice);
 *  - 409 (the match moved: another tablet scored), 422 (the rules refuse it) or another 4xx: the
 *    queue stops and says so. The referee then looks at the board and either sends the rest again
 *    on top of the current score ("reenviar") or discards it. Nothing is merged silently.
 * While offline the colour buttons are enabled (the tablet cannot ask the engine which are legal);
 * the server checks each tap when it is sent, and a refused one stops the queue.
 */
(function () {
  "use strict";
  var body = document.body;
  if (!document.getElementById("ref-live")) return;
  var box = document.getElementById("tap-queue");
  // The match from the live socket's path (the page may be served under another URL, e.g. a table's).
  var matchId = ((body.getAttribute("data-live-ws") || location.pathname).match(/\/matches\/(\d+)\//) || [])[1] || "?";
  var STORE = "sinuca.tapQueue." + matchId;
  var EN = (document.documentElement.lang || "").indexOf("en") === 0;
  var SEND_TIMEOUT = 8000;

  function t(pt, en) { return EN ? en : pt; }

  function load() {
    try { return JSON.parse(localStorage.getItem(STORE) || "[]") || []; } catch (e) { return []; }
  }
  var memory = load();
  function save() {
    try {
      if (memory.length) localStorage.setItem(STORE, JSON.stringify(memory));
      else localStorage.removeItem(STORE);
    } catch (e) { /* private mode or full: the queue still lives in memory */ }
  }

  var state = memory.length ? "offline" : "idle"; // idle | sending | offline | blocked
  var blocked = null;                             // {status, label, message}
  var timer = null, delay = 1000;
  var slow = false, slowTimer = null;             // "sending" is shown only when a send takes a while

  function shownSeq() {
    var el = document.getElementById("live-seq");
    return el ? parseInt(el.getAttribute("data-seq"), 10) : 0;
  }

  function csrfToken() {
    try { return JSON.parse(body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || ""; } catch (e) { return ""; }
  }

  function labelOf(detail, params) {
    var ev = detail.triggeringEvent, btn = ev && ev.submitter;
    if (!btn && detail.elt && detail.elt.tagName === "BUTTON") btn = detail.elt;
    var text = btn ? btn.textContent.replace(/\s+/g, " ").trim() : "";
    if (!text) {
      try { text = JSON.parse(params.event).type; } catch (e) { text = t("Falta", "Foul"); }
    }
    return text.slice(0, 60);
  }

  /* ---------- the indicator ---------- */
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;  // never innerHTML: labels and messages are user text
    return e;
  }

  function enableOfflineButtons(on) {
    var buttons = document.querySelectorAll("#ref-live .ref-controls button.ball:not(.multi)");
    Array.prototype.forEach.call(buttons, function (b) {
      if (on && b.disabled) { b.disabled = false; b.classList.add("offline-enabled"); }
      else if (!on && b.classList.contains("offline-enabled")) { b.disabled = true; b.classList.remove("offline-enabled"); }
    });
  }

  function render() {
    if (!box) return;
    var n = memory.length;
    box.textContent = "";
    box.className = "tap-queue " + state + (n ? " has-taps" : "");
    body.classList.toggle("ref-stale", state === "offline" && n > 0);
    box.hidden = (!n && state !== "offline") || (state === "sending" && !slow);
    if (box.hidden) return;
    var head;
    if (state === "blocked") {
      head = t("Toque recusado", "Tap refused") + (blocked.status ? " (" + blocked.status + ")" : "") + ": " + blocked.label;
    } else if (state === "offline") {
      head = t("sem conexão — " + n + (n === 1 ? " toque na fila" : " toques na fila"),
               "offline — " + n + (n === 1 ? " tap queued" : " taps queued"));
    } else {
      head = t("enviando — " + n + (n === 1 ? " toque na fila" : " toques na fila"),
               "sending — " + n + (n === 1 ? " tap queued" : " taps queued"));
    }
    box.appendChild(el("strong", "tq-head", head));
    if (state === "blocked") {
      box.appendChild(el("p", "tq-why", blocked.message));
      box.appendChild(el("p", "tq-what", t(n + (n === 1 ? " toque parado" : " toques parados") + " na fila. Confira o placar.",
                                         n + (n === 1 ? " tap" : " taps") + " held in the queue. Check the score.")));
    } else if (state === "offline" && n) {
      box.appendChild(el("p", "tq-what", t("Serão enviados em ordem quando a conexão voltar; o servidor confere cada um.",
                                         "They will be sent in order when the connection is back; the server checks each one.")));
    }
    var list = el("ol", "tq-list");
    memory.forEach(function (q) { list.appendChild(el("li", "", q.label)); });
    if (n) box.appendChild(list);
    if (state === "blocked" || (state === "offline" && n)) {
      var row = el("div", "row");
      var retry = el("button", "big tq-retry", state === "blocked"
        ? t("Reenviar sobre o placar atual", "Send again on the current score")
        : t("Tentar agora", "Try now"));
      retry.type = "button";
      retry.addEventListener("click", function () { retryQueue(); });
      var drop = el("button", "big danger tq-discard", t("Descartar " + n + (n === 1 ? " toque" : " toques"),
                                                       "Discard " + n + (n === 1 ? " tap" : " taps")));
      drop.type = "button";
      drop.addEventListener("click", function () { discardQueue(); });
      row.appendChild(retry);
      if (n) row.appendChild(drop);
      box.appendChild(row);
    }
    enableOfflineButtons(state === "offline");
  }

  /* ---------- sending ---------- */
  function schedule() {
    if (timer) clearTimeout(timer);
    var wait = Math.min(delay, 10000) * (0.5 + Math.random());
    delay = Math.min(delay * 2, 10000);
    timer = setTimeout(function () { timer = null; flush(); }, wait);
  }

  function wentOffline() {
    state = "offline";
    render();
    schedule();
  }

  function stop(status, label, message) {
    state = "blocked";
    blocked = {status: status, label: label, message: message};
    render();
  }

  function serverMessage() {
    var m = document.getElementById("ref-msg");
    return m ? m.textContent.trim() : "";
  }

  function flush() {
    if (state === "sending" || state === "blocked") return;
    if (!memory.length) { state = "idle"; render(); return; }
    state = "sending";
    if (slowTimer) clearTimeout(slowTimer);
    slowTimer = setTimeout(function () { slow = true; render(); }, 700);
    render();
    var q = memory[0];
    var form = new URLSearchParams();
    q.params.forEach(function (kv) {
      if (kv[0] !== "expected_seq" && kv[0] !== "key") form.append(kv[0], kv[1]);
    });
    form.append("expected_seq", String(q.expected));
    form.append("key", q.key);
    var ctrl = window.AbortController ? new AbortController() : null;
    var abortTimer = ctrl ? setTimeout(function () { ctrl.abort(); }, SEND_TIMEOUT) : null;
    fetch(q.url, {
      method: "POST", body: form, credentials: "same-origin", cache: "no-store",
      headers: {"X-CSRFToken": csrfToken(), "HX-Request": "true"}, signal: ctrl ? ctrl.signal : undefined
    }).then(function (r) {
      return r.text().then(function (text) { return {status: r.status, text: text}; });
    }).then(function (res) {
      if (abortTimer) clearTimeout(abortTimer);
      sent();
      var s = res.status;
      if (s === 429 || s >= 500) { wentOffline(); return; }  // transient: same key again later
      if (res.text && window.liveApply) window.liveApply(res.text);
      if (s >= 200 && s < 300) {
        memory.shift();
        save();
        delay = 1000;
        if (q.closeDialog) {
          var dlg = document.getElementById("foul-dialog");
          if (dlg && dlg.open) dlg.close();
        }
        state = "idle";
        flush();
        return;
      }
      var msg = serverMessage();
      if (s === 409) {
        msg = t("O placar mudou em outro aparelho (outro tablet marcou) depois deste toque. Confira a tela antes de reenviar.",
                "The score changed on another device (another tablet scored) after this tap. Check the screen before sending again.");
      } else if (s === 401 || s === 403) {
        msg = t("A sessão de árbitro não vale mais: abra de novo o link (QR code) ou digite o PIN.",
                "The referee session is no longer valid: open the referee link (QR code) again or enter the PIN.");
      } else if (!msg) {
        msg = t("O servidor recusou este toque.", "The server refused this tap.");
      }
      stop(s, q.label, msg);
    }).catch(function () {
      if (abortTimer) clearTimeout(abortTimer);
      sent();
      wentOffline();
    });
  }

  function sent() {
    if (slowTimer) { clearTimeout(slowTimer); slowTimer = null; }
    slow = false;
  }

  function retryQueue() {
    if (state === "blocked") {
      // The referee has seen the current score and wants the rest on top of it.
      var base = shownSeq();
      memory.forEach(function (q, i) { q.expected = base + i; });
      save();
      blocked = null;
    }
    state = "idle";
    delay = 1000;
    if (timer) { clearTimeout(timer); timer = null; }
    flush();
  }

  function discardQueue() {
    memory = [];
    save();
    blocked = null;
    state = "idle";
    if (timer) { clearTimeout(timer); timer = null; }
    render();
  }

  function flashMessage(text) {
    var m = document.getElementById("ref-msg");
    if (!m) return;
    m.className = "msg msg-warn";
    m.textContent = text;
  }

  /* ---------- taking taps from htmx ---------- */
  document.addEventListener("htmx:configRequest", function (e) {
    var d = e.detail, elt = d.elt;
    if (d.verb !== "post" || !elt || !elt.closest || !elt.closest("[data-live-response]")) return;
    e.preventDefault();  // htmx sends nothing: the queue does
    if (state === "blocked") {
      flashMessage(t("A fila de toques está parada: reenvie ou descarte antes de continuar.",
                     "The tap queue is stopped: send it again or discard it first."));
      render();
      return;
    }
    var online = navigator.onLine !== false && state !== "offline";
    if (state === "sending" && online) {
      // A second tap while the first is on its way (a double tap): dropped, as hx-sync did.
      flashMessage(t("Aguarde: enviando o toque anterior.", "Wait: sending the previous tap."));
      return;
    }
    var params = [], flat = {};
    if (d.formData && d.formData.forEach) {
      d.formData.forEach(function (v, k) { if (typeof v === "string") { params.push([k, v]); flat[k] = v; } });
    }
    var expected;
    if (memory.length) expected = memory[memory.length - 1].expected + 1;
    else if (/^\d+$/.test(flat.expected_seq || "")) expected = parseInt(flat.expected_seq, 10);
    else expected = shownSeq();
    memory.push({
      key: flat.key || (Date.now().toString(36) + Math.random().toString(36).slice(2)),
      url: d.path, params: params, expected: expected, label: labelOf(d, flat),
      closeDialog: elt.hasAttribute("data-close-dialog"), at: Date.now()
    });
    save();
    if (state === "offline" || navigator.onLine === false) {
      if (elt.hasAttribute("data-close-dialog")) {
        var dlg = document.getElementById("foul-dialog");
        if (dlg && dlg.open) dlg.close();
      }
      state = "offline";
      render();
      return;
    }
    flush();
  });

  // Try again as soon as there are signs of a network: the browser says so, or the live socket
  // (re)connected or delivered a change.
  function networkBack() {
    if (state === "offline") { delay = 1000; if (timer) { clearTimeout(timer); timer = null; } flush(); }
  }
  window.addEventListener("online", networkBack);
  window.addEventListener("offline", function () {
    if (state === "idle") { state = "offline"; render(); }
  });
  document.addEventListener("live:status", function (e) { if (e.detail && e.detail.up) networkBack(); });
  document.addEventListener("live:applied", function () {
    if (state === "offline") enableOfflineButtons(true);  // a socket message replaced the controls
  });
  document.addEventListener("visibilitychange", function () { if (!document.hidden) networkBack(); });

  window.refereeQueue = {  // for tests and the curious: read-only views
    length: function () { return memory.length; },
    state: function () { return state; },
    items: function () { return JSON.parse(JSON.stringify(memory)); }
  };

  render();
  if (memory.length) flush();  // taps left by a reload or a closed tab
})();
