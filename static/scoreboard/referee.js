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
 * With the in-browser engine loaded (engine.js: the same sinuca/ package, in Pyodide) every tap is
 * first applied by it: a tap the rules refuse is not queued (the engine's message shows), an
 * accepted one shows its result at once (scores, ball on, legal buttons, the decision's choices,
 * the undo preview), before the server answers; the server's answer then replaces it. With the
 * engine the foul dialog and its preview come from it too, offline or not. Nothing of the match is
 * drawn here: the engine answers HTML (presentation.referee_html, the function whose output the
 * server's page includes) and showLocal only swaps it in; this file keeps the queue, the engine's
 * bridge and the swap (the gestures are referee-ui.js's, the socket live.js's). Without the engine (it did not load) the
 * tablet works as before: offline the colour buttons are enabled and the server checks each tap
 * when it is sent; a refused one stops the queue.
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
  var engine = window.sinucaEngine || null;   // engine.js runs first (both deferred, in order)
  var timings = [];                           // ms from a tap's handler to its result on screen
  var lastMarks = null;                       // where the last tap's time went (for the benchmark)
  // The engine decides a tap only once it has replayed the log (engineSynced): between its load
  // and that first replay it held the opening position, and a tap then (a decision's choice, say)
  // was refused by it and never sent.
  var engineSynced = false;
  function engineUp() { return !!(engine && engine.loaded && !engine.failed); }
  function engineOn() { return engineUp() && engineSynced; }

  function t(pt, en) { return EN ? en : pt; }

  // this device's own id, kept across reloads: a queue it holds is its own, not another
  // tablet's (tablet-status.js reports it with the queue)
  try {
    window.tabletId = localStorage.getItem("sinuca.tabletId") || "";
    if (!/^[A-Za-z0-9_-]{16,40}$/.test(window.tabletId)) {
      window.tabletId = window.crypto && crypto.randomUUID ? crypto.randomUUID()
        : Date.now().toString(36) + Math.random().toString(36).slice(2, 14);
      localStorage.setItem("sinuca.tabletId", window.tabletId);
    }
  } catch (e) { window.tabletId = ""; }

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

  // A refused tap stays refused across a reload (kept beside the queue) until the referee resends
  // or discards: retrying it on load only earned another refusal.
  function loadBlocked() {
    try { return JSON.parse(localStorage.getItem(STORE + ".refused") || "null"); } catch (e) { return null; }
  }
  function saveBlocked() {
    try {
      if (blocked && memory.length) localStorage.setItem(STORE + ".refused", JSON.stringify(blocked));
      else localStorage.removeItem(STORE + ".refused");
    } catch (e) { /* the refusal still lives in memory */ }
  }
  var blocked = memory.length ? loadBlocked() : null; // {status, label, message, note, position, total}
  var state = blocked ? "blocked" : memory.length ? "offline" : "idle"; // idle | sending | offline | blocked
  // what tablet-status.js reports to the desk over the socket
  window.tabletState = function () { return {queued: memory.length, engine: engineOn(), state: state}; };
  var queueOpen = false;                          // offline: the list folded away unless asked for
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
    var text = "";
    if (btn) {
      // "Vermelha <small>1</small>" reads "Vermelha (1)": a bare trailing number ran into the next
      // item of the queue list ("1. Vermelha 12. Sem ponto").
      var small = btn.querySelector("small");
      text = btn.textContent.replace(small ? small.textContent : "", "").replace(/\s+/g, " ").trim();
      if (small && small.textContent.trim()) text += " (" + small.textContent.trim() + ")";
    }
    if (!text) {
      try { text = JSON.parse(params.event).type; } catch (e) { text = t("Falta", "Foul"); }
    }
    return text.slice(0, 60);
  }

  /* ---------- the indicator ---------- */
  /* ``box`` holding ``text``, its "Art. N" taps on the article (referee-ui.js's refereeCited). */
  function cited(box, text) {
    if (window.refereeCited) window.refereeCited(box, text); else box.textContent = text;
    return box;
  }

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;  // never innerHTML: labels and messages are user text
    return e;
  }

  function enableOfflineButtons(on) {
    if (on && engineOn()) return;  // the engine says which buttons are legal
    var buttons = document.querySelectorAll("#ref-live .ref-controls button.ball:not(.multi)");
    Array.prototype.forEach.call(buttons, function (b) {
      if (on && b.disabled) { b.disabled = false; b.classList.add("offline-enabled"); }
      else if (!on && b.classList.contains("offline-enabled")) { b.disabled = true; b.classList.remove("offline-enabled"); }
    });
  }

  function render() {
    if (!box) return;
    var n = memory.length;
    if (!n) discardAsked = 0;
    box.textContent = "";
    box.className = "tap-queue " + state + (n ? " has-taps" : "") + (state === "blocked" || queueOpen ? " open" : "");
    // with the engine the board shows the position after the queued taps, not a stale one
    body.classList.toggle("ref-stale", state === "offline" && n > 0 && !engineOn());
    box.hidden = (!n && state !== "offline") || (state === "sending" && !slow);
    if (box.hidden) return;
    var head;
    if (state === "blocked") {
      head = t("Toque recusado", "Tap refused") + (blocked.status ? " (" + blocked.status + ")" : "") + ": " +
        t("toque " + blocked.position + " de " + blocked.total, "tap " + blocked.position + " of " + blocked.total) +
        " — " + blocked.label;
    } else if (state === "offline") {
      head = t("sem conexão — " + n + (n === 1 ? " toque na fila" : " toques na fila"),
               "offline — " + n + (n === 1 ? " tap queued" : " taps queued"));
    } else {
      head = t("enviando — " + n + (n === 1 ? " toque na fila" : " toques na fila"),
               "sending — " + n + (n === 1 ? " tap queued" : " taps queued"));
    }
    var headEl = el("strong", "tq-head", head);
    if (state === "offline" && n) {
      // folded, the banner keeps the status slot's one line (it never grows over the scores);
      // unfolded, the list opens as a fixed sheet over the action area, scrolling inside
      var fold = el("button", "tq-fold", queueOpen ? t("fechar", "close") : t("ver fila", "show queue"));
      fold.type = "button";
      fold.setAttribute("aria-expanded", String(queueOpen));
      fold.addEventListener("click", function () { queueOpen = !queueOpen; render(); });
      box.appendChild(fold);
    }
    box.appendChild(headEl);
    if (state === "blocked") {
      // the server's words once, here (the top bar is cleared; the heading names the tap)
      box.appendChild(cited(el("p", "tq-why"), t("O servidor respondeu: ", "The server said: ") + blocked.message));
      if (blocked.note) box.appendChild(el("p", "tq-note", blocked.note));
      box.appendChild(el("p", "tq-what", t(n + (n === 1 ? " toque parado" : " toques parados") + " na fila.",
                                         n + (n === 1 ? " tap" : " taps") + " held in the queue.")));
    } else if (state === "offline" && n) {
      box.appendChild(el("p", "tq-what", t("Serão enviados em ordem quando a conexão voltar; o servidor confere cada um.",
                                         "They will be sent in order when the connection is back; the server checks each one.")));
    }
    var list = el("ol", "tq-list");
    memory.forEach(function (q, i) {
      var li = el("li", "tq-item");
      li.appendChild(el("span", "tq-n", (i + 1) + ". "));
      li.appendChild(el("span", "tq-label", q.label));
      li.style.listStyle = "none";
      list.appendChild(li);
    });
    list.style.display = "block";  // one tap a line: side by side their texts ran together
    if (n) box.appendChild(list);
    if (state === "blocked" || (state === "offline" && n)) {
      var row = el("div", "row");
      var retry = el("button", "big tq-retry", state === "blocked"
        ? t("Reenviar sobre o placar atual", "Send again on the current score")
        : t("Tentar agora", "Try now"));
      retry.type = "button";
      retry.addEventListener("click", function () { retryQueue(); });
      row.appendChild(retry);
      box.appendChild(row);
      if (n) box.appendChild(discardRow(n));
    }
    enableOfflineButtons(state === "offline");
    document.dispatchEvent(new CustomEvent("tablet:queue"));  // tablet-status.js tells the others
  }

  /* Taps another tablet of this match holds unsent (#held-elsewhere, pushed on the socket by the
     server when that tablet reports them): said here, its own entry left out. */
  function showHeld() {
    var box = document.getElementById("held-elsewhere");
    if (!box) return;
    var held = {};
    try { held = JSON.parse(box.getAttribute("data-held") || "{}") || {}; } catch (e) { held = {}; }
    var n = 0, stopped = false;
    Object.keys(held).forEach(function (id) {
      if (id === window.tabletId) return;
      n += held[id].queued || 0;
      stopped = stopped || held[id].state === "blocked";
    });
    box.hidden = !n;
    box.textContent = !n ? "" : t("Outro tablet deste jogo tem " + n + (n === 1 ? " toque não enviado" : " toques não enviados") +
                                  (stopped ? " (fila parada)" : " (sem conexão)") + ": confira com ele antes de marcar.",
                                  "Another tablet of this match holds " + n + (n === 1 ? " unsent tap" : " unsent taps") +
                                  (stopped ? " (queue stopped)" : " (offline)") + ": check with it before scoring.");
  }
  new MutationObserver(function () {
    var box = document.getElementById("held-elsewhere");
    if (box && box.getAttribute("data-shown") !== box.getAttribute("data-held")) {
      box.setAttribute("data-shown", box.getAttribute("data-held"));
      showHeld();
    }
  }).observe(body, {childList: true, subtree: true});

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

  function stop(status, label, message, note) {
    state = "blocked";
    blocked = {status: status, label: label, message: message, note: note || "",
               position: sentBefore + 1, total: sentBefore + memory.length};
    saveBlocked();
    var m = document.getElementById("ref-msg");
    if (m && m.textContent.trim() === message) { m.textContent = ""; m.className = "msg"; }
    render();
    // The board shows the server's state: redrawn from the server's log alone, since a resync
    // begun before the refusal may have drawn the queued taps on top of it (a 409 answer carries
    // no board, so the stale local drawing stayed: "0–8" where the server had 0–0).
    if (engineOn()) resync(true);
  }
  var sentBefore = 0;  // taps of this run of the queue already accepted (to say "tap 2 of 3")
  var inflight = null; // the tap on its way (one at a time): only its answer moves the queue

  function serverMessage() {
    var m = document.getElementById("ref-msg");
    return m ? m.textContent.trim() : "";
  }

  /* Send the queue's first tap. Without ``force`` (a reload's leftovers, the back-off timer)
     nothing is sent while the browser says it has no network at all (navigator.onLine false, as
     a tap taken then is already held): the request could only fail; its "online" event, the
     live socket coming up or the referee's "send again" send the queue (force). */
  function flush(force) {
    if (state === "sending" || state === "blocked") return;
    if (!memory.length) { state = "idle"; render(); return; }
    if (!force && navigator.onLine === false) { state = "offline"; render(); return; }
    state = "sending";
    if (slowTimer) clearTimeout(slowTimer);
    slowTimer = setTimeout(function () { slow = true; render(); }, 700);
    render();
    var q = memory[0];
    inflight = q;
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
      headers: {"X-CSRFToken": csrfToken(), "HX-Request": "true",
                "X-Sinuca-Socket": body.getAttribute("data-socket-id") || ""}, signal: ctrl ? ctrl.signal : undefined
    }).then(function (r) {
      return r.text().then(function (text) { return {status: r.status, text: text}; });
    }).then(function (res) {
      if (abortTimer) clearTimeout(abortTimer);
      var s = res.status;
      if (q !== inflight) {
        // not the send the queue waits on: its board may be drawn, the queue is not touched
        if (res.text && window.liveApply && s < 500 && s !== 429) window.liveApply(res.text);
        return;
      }
      inflight = null;
      sent();
      if (s === 429 || s >= 500) { wentOffline(); return; }  // transient: same key again later
      if (res.text && window.liveApply) window.liveApply(res.text);
      if (s >= 200 && s < 300) {
        if (memory[0] === q) memory.shift();
        save();
        sentBefore += 1;
        if (engine) {
          var known = engine.serverEvents().length;
          if (q.event && shownSeq() === known + 1) {
            engine.confirmed(q.event, known + 1);
            // the board now shows the server's answer; taps still queued go back on top of it
            if (memory.length && engineOn()) engine.call({op: "view"}).then(function (r) { if (memory.length) showLocal(r); });
          } else if (engineOn()) resync();
        }
        if (!memory.length) sentBefore = 0;
        delay = 1000;
        if (q.closeDialog) {
          var dlg = document.getElementById("foul-dialog");
          if (dlg && dlg.open) dlg.close();
        }
        state = "idle";
        flush(true);  // the server just answered: the network is there
        return;
      }
      if (s === 409 && q.noEvent) {
        // an Art. 28 answer for a stroke already played: nothing kept, the server says so, and
        // the taps after it go on (it is no event they count on)
        if (memory[0] === q) memory.shift();
        save();
        state = "idle";
        flush(true);
        return;
      }
      var msg = serverMessage(), note = "";
      if (s === 409) {
        note = t("O placar mudou em outro aparelho (outro tablet marcou) depois deste toque. Confira a tela antes de reenviar.",
                 "The score changed on another device (another tablet scored) after this tap. Check the screen before sending again.");
      } else if (s === 401 || s === 403) {
        note = t("A sessão de árbitro não vale mais: abra de novo o link (QR code) ou digite o PIN.",
                 "The referee session is no longer valid: open the referee link (QR code) again or enter the PIN.");
      }
      if (!msg) msg = note || t("O servidor recusou este toque.", "The server refused this tap.");
      if (msg === note || s === 409) note = "";  // the server's 409 already says it: said once
      stop(s, q.label, msg, note);
    }).catch(function () {
      if (abortTimer) clearTimeout(abortTimer);
      if (q !== inflight) return;
      inflight = null;
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
      memory.forEach(function (q) { q.expected = base; if (!q.noEvent) base += 1; });
      save();
      blocked = null;
      saveBlocked();
      sentBefore = 0;
      if (engineOn()) resync(true);
    }
    state = "idle";
    delay = 1000;
    if (timer) { clearTimeout(timer); timer = null; }
    flush(true);  // the referee asked for it
  }

  /* Discarding asks first, as an undo does: the question replaces "Descartar…" at the far end of
     the banner from "Tentar agora", and its "Sim" arms only after a moment (a double tap on
     "Descartar…" never confirms). */
  var discardAsked = 0;  // when "Descartar…" was tapped (0: not asked)
  function discardRow(n) {
    var row = el("div", "row tq-discard-row");
    row.style.justifyContent = "flex-end";
    row.style.marginTop = "24px";
    if (!discardAsked) {
      var ask = el("button", "big danger tq-discard", t("Descartar " + n + (n === 1 ? " toque…" : " toques…"),
                                                      "Discard " + n + (n === 1 ? " tap…" : " taps…")));
      ask.type = "button";
      ask.addEventListener("click", function () { discardAsked = performance.now(); render(); });
      row.appendChild(ask);
      return row;
    }
    row.appendChild(el("span", "tq-discard-what", t("Descartar " + n + (n === 1 ? " toque? Ele não será enviado." : " toques? Eles não serão enviados."),
                                                   "Discard " + n + (n === 1 ? " tap? It will not be sent." : " taps? They will not be sent."))));
    var yes = el("button", "big danger tq-discard-yes", t("Sim, descartar", "Yes, discard"));
    yes.type = "button";
    var arming = 600 - (performance.now() - discardAsked);
    yes.disabled = arming > 0;
    if (arming > 0) setTimeout(function () { yes.disabled = false; }, Math.min(arming, 600));
    yes.addEventListener("click", function () { discardQueue(); });
    var no = el("button", "big tq-discard-no", t("Não", "No"));
    no.type = "button";
    no.addEventListener("click", function () { discardAsked = 0; render(); });
    row.appendChild(yes);
    row.appendChild(no);
    return row;
  }

  /* Drop every queued tap and draw the server's board at once (the engine's drawing showed them). */
  function discardQueue() {
    discardAsked = 0;
    if (!memory.length) {
      flashMessage(t("Nada a descartar: a fila já está vazia (os toques foram enviados). Nada foi apagado.",
                     "Nothing to discard: the queue is already empty (the taps were sent). Nothing was removed."));
      render();
      return;
    }
    memory = [];
    sentBefore = 0;
    save();
    blocked = null;
    saveBlocked();
    queueOpen = false;
    state = navigator.onLine === false ? "offline" : "idle";
    if (timer) { clearTimeout(timer); timer = null; }
    if (window.refereeGuard) window.refereeGuard.forgetArt28();
    if (engineUp()) resync(true);
    render();
    flashMessage(t("Fila descartada: o placar é o do servidor.", "Queue discarded: the board is the server's."), "info");
  }

  function flashMessage(text, level) {
    var m = document.getElementById("ref-msg");
    if (!m) return;
    m.className = "msg msg-" + (level || "warn");
    cited(m, text);
  }

  /* ---------- the tap's way in ----------
     Every htmx request of the tablet passes this one listener, in this order:
      1. a POST gets its idempotency key (live.js's);
      2. a tap (a POST of the controls, the Art. 28 answer, the foul dialog's confirm) meets the
         guard (referee-ui.js): a tap aimed at a board that has changed is dropped there, said
         by a flash, and nothing after sees it; a stopped queue takes no tap either;
      3. the foul dialog asked of the server carries this tablet's Art. 28 answer for the stroke;
      4. the dialog's preview is the engine's when it is on;
      5. a tap is taken by the queue: through the engine when it is on, else straight in. */
  document.addEventListener("htmx:configRequest", function (e) {
    var d = e.detail, elt = d.elt;
    if (d.verb === "post" && window.liveKey) d.parameters.key = window.liveKey();
    var isTap = d.verb === "post" && elt && elt.closest && !!elt.closest("[data-live-response]");
    if (isTap) {
      if (window.refereeGuard && window.refereeGuard.check(d, isApplying())) { e.preventDefault(); return; }
      takeTap(e);
      return;
    }
    if (/\/referee\/foul\/$/.test(d.path || "") && d.verb === "get" && art28Declared()) {
      d.parameters.art28 = document.querySelector("#ref-live .art28").getAttribute("data-seq");
      return;
    }
    if (elt && elt.id === "foul-form" && engineOn()) {
      e.preventDefault();
      engine.call({op: "foul_preview", fields: fieldsOf(formParams(elt))}).then(function (r) {
        var pv = document.getElementById("foul-preview");
        if (pv && r && typeof r.html === "string") pv.innerHTML = r.html;
      });
    }
  });

  // a tap in the engine, not yet drawn (the board under a finger is going): since when, or 0;
  // an engine that never answers holds no tap back for longer than APPLY_MS
  var applyingSince = 0, APPLY_MS = 3000;
  function isApplying() { return !!applyingSince && performance.now() - applyingSince < APPLY_MS; }

  function takeTap(e) {
    var d = e.detail, elt = d.elt;
    e.preventDefault();  // htmx sends nothing: the queue does
    if (state === "blocked") {
      flashMessage(t("A fila de toques está parada: reenvie ou descarte antes de continuar.",
                     "The tap queue is stopped: send it again or discard it first."));
      render();
      return;
    }
    if (window.refereeGuard) window.refereeGuard.took();
    var started = performance.now();
    var params = [], flat = {};
    if (d.formData && d.formData.forEach) {
      d.formData.forEach(function (v, k) { if (typeof v === "string") { params.push([k, v]); flat[k] = v; } });
    }
    var item = {
      key: flat.key || (Date.now().toString(36) + Math.random().toString(36).slice(2)),
      url: d.path, params: params, label: labelOf(d, flat),
      closeDialog: elt.hasAttribute("data-close-dialog"), at: Date.now()
    };
    if (flat.event) { try { item.event = JSON.parse(flat.event); } catch (err) { /* the server says why */ } }
    // The Art. 28 answer rides the queue (in order, its message applied) but is no event of the
    // match: the engine does not apply it (read as a foul dialog's fields it scored a 4-point
    // foul on the tablet) and the next tap's expected seq does not count it.
    item.noEvent = !flat.event && !item.closeDialog;
    if (elt.matches && elt.matches("button[data-answer]") && window.refereeGuard) window.refereeGuard.art28(elt);
    if (engineOn() && !item.noEvent) {
      takeWithEngine(item, flat, started);
      return;
    }
    enqueue(item, flat);
  }

  function enqueue(item, flat) {
    var prev = memory[memory.length - 1];
    if (prev) item.expected = prev.expected + (prev.noEvent ? 0 : 1);
    else if (/^\d+$/.test((flat && flat.expected_seq) || "")) item.expected = parseInt(flat.expected_seq, 10);
    else item.expected = shownSeq();
    memory.push(item);
    save();
    if (item.closeDialog) {
      var dlg = document.getElementById("foul-dialog");
      if (dlg && dlg.open && (state === "offline" || navigator.onLine === false || engineOn())) dlg.close();
    }
    // A tap on its way keeps the queue "sending" whatever the browser says meanwhile: its answer
    // (or its failure) decides what comes next. Marked "offline" under it, the queue was sent
    // again when the network came back, the tap on its way a second time, and each of the two
    // answers took a tap off the queue: the second took one that had never been sent.
    if (state === "sending") { render(); return; }  // sent after the one on its way
    if (state === "offline" || navigator.onLine === false) {
      state = "offline";
      render();
      return;
    }
    flush();
  }

  /* ---------- the in-browser engine ---------- */
  function fieldsOf(params) {
    var f = {};
    params.forEach(function (kv) { (f[kv[0]] = f[kv[0]] || []).push(kv[1]); });
    return f;
  }

  /* Apply the tap in the engine first: refused, it is not queued and the engine's reason shows;
     accepted, its result is on screen before the tap is sent. */
  function takeWithEngine(item, flat, started) {
    var eventP = item.event ? Promise.resolve(item.event)
      : engine.call({op: "foul_preview", fields: fieldsOf(item.params)}).then(function (r) {
        if (r.ask) {  // the colour aimed at is not said: nothing is recorded, the dialog says so
          var pv = document.getElementById("foul-preview");
          if (pv) pv.innerHTML = r.html;
          throw {asked: true};
        }
        return r.event;
      });
    var marks = {queued: performance.now() - started};
    applyingSince = performance.now();
    eventP.then(function (ev) {
      item.event = ev;
      marks.event = performance.now() - started;
      return engine.call({op: "apply", event: ev});
    }).then(function (res) {
      marks.applied = performance.now() - started;
      lastMarks = marks;
      if (!res.ok) {
        applyingSince = 0;
        // the engine's words in the tablet's language (a malformed answer: its code, never an object)
        flashMessage(typeof res.message === "string" && res.message ? res.message
                     : t("Toque recusado pelas regras.", "Tap refused by the rules."), "error");
        return;
      }
      if (res.description) item.label = res.description;
      try {
        enqueueLocal(item, flat, res, started);  // its drawing is this tap's own, not a change from elsewhere
      } finally {
        applyingSince = 0;
      }
    }, function (err) {
      applyingSince = 0;
      if (err && err.asked) return;
      enqueue(item, flat);  // the engine failed on this tap: the server decides
    });
  }

  function enqueueLocal(item, flat, res, started) {
    showLocal(res, res.description);
    timings.push(Math.round((performance.now() - started) * 100) / 100);
    if (timings.length > 200) timings.shift();
    enqueue(item, flat);
  }

  /* The engine's answer drawn: the HTML it gives (presentation.referee_html.region, the very
     function whose output the server's page includes) swapped into #ref-live; nothing of the
     view is drawn here. Only the page's own gesture survives the swap: "Mais ações" left open. */
  function showLocal(res, description) {
    var live = document.getElementById("ref-live");
    if (!live || !res || typeof res.html !== "string") return;
    var more = live.querySelector("details.more"), open = !!(more && more.open);
    live.innerHTML = res.html;
    live.setAttribute("data-local", "1");
    if (open) { more = live.querySelector("details.more"); if (more) more.open = true; }
    if (window.htmx) window.htmx.process(live);
    if (description) flashMessage(description, "info");
    document.dispatchEvent(new CustomEvent("tablet:drawn", {detail: {position: res.position}}));
  }

  /* The Art. 28 answer the referee gave for the stroke shown is "yes" (kept by referee-ui.js), to
     tick "aggravated" in the foul dialog as the server's dialog does. */
  function art28Declared() {
    return !!(window.refereeGuard && window.refereeGuard.art28Answer() === "yes");
  }

  /* ---------- the rules' words on the tablet ----------
     A tap on an "Art. N" (the renderer's span.art[data-art], in a log line, a banner, the foul
     preview, a decision's heading or the chips beside its choices, the message bar, a refused
     tap's reason) opens that article's words, the cited item marked; a tap on a
     log line elsewhere opens that event's "why?" (the state before it, the rules it applied and
     their words). The engine draws both (presentation.referee_html: article_panel, why_panel),
     offline too; without it the server does (/rules/<ref>/panel/, /matches/<id>/why/<seq>/).
     The dialog is modal but lies over the board (or over the foul dialog's fields), so the
     controls needed next stay in sight; one tap anywhere closes it and that tap does nothing
     else. These taps are taken here, before the guard and htmx see them: they send nothing and
     are not the guard's last tap. */
  var ruleDlg = document.getElementById("rule-dialog");
  function rulePanel(req, url) {
    var viaEngine = engineUp() && (req.op === "article" || engineOn());
    var asked = viaEngine ? engine.call(req).then(function (r) {
      if (r && r.ok && typeof r.html === "string") return r.html;
      throw r;
    }) : Promise.reject(null);
    return asked.catch(function () {
      return fetch(url + (EN ? (url.indexOf("?") < 0 ? "?" : "&") + "lang=en" : ""), {credentials: "same-origin"})
        .then(function (r) { return r.text(); });
    });
  }
  function placeRule(from) {
    var inFoul = from.closest && from.closest("#foul-dialog");
    var area = null;
    if (inFoul) {
      var form = document.getElementById("foul-form"), acts = form && form.querySelector(".foul-actions");
      var f = document.getElementById("foul-dialog").getBoundingClientRect();
      var bottom = acts ? acts.getBoundingClientRect().top : f.bottom;
      area = {left: f.left, top: f.top, width: f.width, height: Math.max(200, bottom - f.top - 4)};
    } else {
      var board = document.querySelector("#ref-live .ref-board");
      var r = board ? board.getBoundingClientRect() : null;
      if (r) {
        var top = Math.max(4, r.top), bottom2 = Math.min(window.innerHeight - 4, r.bottom);
        area = {left: r.left, top: top, width: r.width, height: Math.max(240, bottom2 - top)};
      }
    }
    var st = ruleDlg.style;
    if (!area) { st.left = st.top = st.width = st.height = ""; return; }
    st.left = area.left + "px"; st.top = area.top + "px";
    st.width = area.width + "px"; st.height = area.height + "px";
  }
  function openRule(from, req, url) {
    if (!ruleDlg) return;
    rulePanel(req, url).then(function (html) {
      ruleDlg.innerHTML = html;
      placeRule(from);
      if (!ruleDlg.open) ruleDlg.showModal();
      ruleDlg.scrollTop = 0;
      var cited = ruleDlg.querySelector(".cited");
      if (cited && cited.scrollIntoView) cited.scrollIntoView({block: "center"});
    }).catch(function () {
      flashMessage(t("Sem conexão e sem o motor: o texto da regra não pôde ser aberto.",
                     "No network and no engine: the rule's text could not be opened."), "error");
    });
  }
  function ruleTap(elt) {
    var art = elt.closest(".art[data-art]");
    if (art) {
      var ref = art.getAttribute("data-art");
      return {op: {op: "article", ref: ref}, url: "/rules/" + encodeURIComponent(ref) + "/panel/", at: art};
    }
    var line = elt.closest("#ref-live .ref-log li[data-why]");
    if (line) {
      var seq = parseInt(line.getAttribute("data-why"), 10);
      return {op: {op: "why", seq: seq}, url: "/matches/" + matchId + "/why/" + seq + "/?partial=1", at: line};
    }
    return null;
  }
  window.addEventListener("click", function (e) {
    var elt = e.target;
    if (!elt || !elt.closest || !ruleDlg) return;
    if (ruleDlg.contains(elt)) {
      // inside the dialog: an "Art." of a "why?" opens the whole article; any other tap closes
      e.preventDefault();
      e.stopImmediatePropagation();
      var inner = elt.closest(".why-panel .art[data-art]");
      if (inner) {
        var ref = inner.getAttribute("data-art");
        openRule(inner, {op: "article", ref: ref}, "/rules/" + encodeURIComponent(ref) + "/panel/");
      } else {
        ruleDlg.close();
      }
      return;
    }
    if (!elt.closest("#ref-live, #foul-dialog, #ref-msg, #tap-queue")) return;
    var tap = ruleTap(elt);
    if (!tap) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    openRule(tap.at, tap.op, tap.url);
  }, true);
  document.addEventListener("keydown", function (e) {
    // the keyboard's way to the same: Enter or Space on a focused "Art."
    if ((e.key === "Enter" || e.key === " ") && e.target && e.target.matches && e.target.matches(".art[data-art]")) {
      e.preventDefault();
      e.target.click();
    }
  });

  // With the engine loaded, "Falta…" opens the engine's dialog (the same renderer's HTML as the
  // server's): no network needed, and the table is the one shown, queued taps included.
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("#ref-live button[data-action=foul]");
    if (!b || !engineOn()) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    openLocalFoul();
  }, true);

  function openLocalFoul() {
    var dlg = document.getElementById("foul-dialog"), bodyEl = document.getElementById("foul-body");
    if (!dlg || !bodyEl) return;
    engine.call({op: "foul_form", declared: art28Declared()}).then(function (res) {
      if (!res || !res.ok || typeof res.html !== "string") {
        flashMessage((res && res.message) || t("O motor do tablet não respondeu.", "The tablet's engine did not answer."), "error");
        return;
      }
      bodyEl.innerHTML = res.html;
      if (window.htmx) window.htmx.process(bodyEl);
      document.dispatchEvent(new CustomEvent("tablet:foul-drawn"));
      if (!dlg.open) dlg.showModal();
    });
  }

  function formParams(form) {
    var params = [];
    new FormData(form).forEach(function (v, k) { if (typeof v === "string") params.push([k, v]); });
    return params;
  }

  /* The engine follows the server's log plus the taps still queued (unless the queue is stopped:
     then the board is the server's). */
  var resyncing = null;
  function resync(redraw) {
    if (!engineUp()) return Promise.resolve();
    var run = function () {
      return engine.syncLog().catch(function () { return 0; }).then(function () {
        var events = engine.serverEvents().slice();
        if (state !== "blocked") memory.forEach(function (q) { if (q.event) events.push(q.event); });
        return engine.call({op: "reset", events: events});
      }).then(function (res) {
        if (res && res.ok && (redraw || (state !== "blocked" && res.count !== shownSeq()))) showLocal(res);
      });
    };
    resyncing = (resyncing || Promise.resolve()).then(run, run);
    return resyncing;
  }

  document.addEventListener("engine:ready", function () {
    resync().then(function () { engineSynced = true; render(); }, function () { render(); });
  });
  document.addEventListener("engine:failed", function () { render(); });
  // A socket message or an answer replaced the board: with taps still queued, the engine's view
  // (ahead of the server by those taps) goes back on top.
  function boardReplaced(e) {
    if (!engineOn()) return;
    var seq = e.detail && e.detail.seq;
    if (seq > engine.serverEvents().length + (state === "sending" ? 1 : 0)) resync();
    else if (memory.length && state !== "blocked" && state !== "sending") resync();
  }
  document.addEventListener("live:applied", boardReplaced);
  document.addEventListener("live:restated", boardReplaced);  // the same seq drawn again (a rename)

  // Try again as soon as there are signs of a network: the browser says so, or the live socket
  // (re)connected or delivered a change (both proof enough to send); the tablet woken up tries
  // too, unless the browser says there is no network.
  function networkBack(proof) {
    if (state === "offline") { delay = 1000; if (timer) { clearTimeout(timer); timer = null; } flush(proof === true); }
  }
  window.addEventListener("online", function () { networkBack(true); });
  window.addEventListener("offline", function () {
    if (state === "idle") { state = "offline"; render(); }
  });
  document.addEventListener("live:status", function (e) { if (e.detail && e.detail.up) networkBack(true); });
  document.addEventListener("live:applied", function () {
    if (state === "offline") enableOfflineButtons(true);  // a socket message replaced the controls
  });
  document.addEventListener("visibilitychange", function () { if (!document.hidden) networkBack(false); });

  window.refereeQueue = {  // for tests and the curious: read-only views
    length: function () { return memory.length; },
    state: function () { return state; },
    engineOn: function () { return engineOn(); },  // the engine loaded and caught up with the log
    applying: function () { return isApplying(); },  // a tap in the engine, not drawn yet
    timings: function () { return timings.slice(); },
    lastMarks: function () { return lastMarks; },
    items: function () { return JSON.parse(JSON.stringify(memory)); }
  };

  render();
  showHeld();
  if (memory.length && state !== "blocked") flush();  // taps left by a reload or a closed tab

  // Every handler is in place once htmx has bound the page (its DOMContentLoaded listener was
  // added before this one): only now do the controls take taps. Before, a tap submitted the form
  // as a page load and was lost (the page's head marks it "js-wait", base.css lets no tap through).
  function takeTaps() { document.documentElement.classList.remove("js-wait"); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", takeTaps);
  else takeTaps();
})();
