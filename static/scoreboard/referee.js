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
 * the undo preview), before the server answers; the server's answer then replaces it. Offline the
 * foul dialog and its preview come from the engine too. Without the engine (it did not load) the
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
  function engineOn() { return !!(engine && engine.loaded && !engine.failed); }

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
      box.appendChild(el("p", "tq-why", t("O servidor respondeu: ", "The server said: ") + blocked.message));
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
        sentBefore += 1;
        if (engine) {
          var known = engine.serverEvents().length;
          if (q.event && shownSeq() === known + 1) {
            engine.confirmed(q.event, known + 1);
            // the board now shows the server's answer; taps still queued go back on top of it
            if (memory.length && engineOn()) engine.call({op: "view"}).then(function (r) { if (memory.length) showLocal(r.view); });
          } else if (engineOn()) resync();
        }
        if (!memory.length) sentBefore = 0;
        delay = 1000;
        if (q.closeDialog) {
          var dlg = document.getElementById("foul-dialog");
          if (dlg && dlg.open) dlg.close();
        }
        state = "idle";
        flush();
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
    flush();
  }

  function discardQueue() {
    memory = [];
    sentBefore = 0;
    save();
    if (engineOn()) resync();
    blocked = null;
    saveBlocked();
    queueOpen = false;
    state = "idle";
    if (timer) { clearTimeout(timer); timer = null; }
    render();
  }

  function flashMessage(text, level) {
    var m = document.getElementById("ref-msg");
    if (!m) return;
    m.className = "msg msg-" + (level || "warn");
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
    var started = performance.now();
    var online = navigator.onLine !== false && state !== "offline";
    if (state === "sending" && online && !engineOn()) {
      // A second tap while the first is on its way (a double tap): dropped, as hx-sync did.
      flashMessage(t("Aguarde: enviando o toque anterior.", "Wait: sending the previous tap."));
      return;
    }
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
    if (engineOn() && !item.noEvent) {
      // Taps are queued behind one on its way (the engine checked each), but the same button
      // twice within half a second is a double tap: dropped, as it was while a tap was sending.
      var last = memory[memory.length - 1];
      if (last && flat.event && last.params.some(function (kv) { return kv[0] === "event" && kv[1] === flat.event; })
          && item.at - last.at < 500) {
        flashMessage(t("Toque repetido ignorado.", "Repeated tap ignored."));
        return;
      }
      takeWithEngine(item, flat, started);
      return;
    }
    enqueue(item, flat);
  });

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
    if (state === "offline" || navigator.onLine === false) {
      state = "offline";
      render();
      return;
    }
    if (state === "sending") { render(); return; }  // sent after the one on its way
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
      : engine.call({op: "foul_event", fields: fieldsOf(item.params)}).then(function (r) { return r.event; });
    var marks = {queued: performance.now() - started};
    eventP.then(function (ev) {
      item.event = ev;
      marks.event = performance.now() - started;
      return engine.call({op: "apply", event: ev});
    }).then(function (res) {
      marks.applied = performance.now() - started;
      lastMarks = marks;
      if (!res.ok) {
        flashMessage(res.error.message, "error");
        return;
      }
      if (res.description) item.label = res.description;
      enqueueLocal(item, flat, res, started);
    }, function () { enqueue(item, flat); });  // the engine failed on this tap: the server decides
  }

  function enqueueLocal(item, flat, res, started) {
    showLocal(res.view, res.description);
    timings.push(Math.round((performance.now() - started) * 100) / 100);
    if (timings.length > 200) timings.shift();
    enqueue(item, flat);
  }

  var BALL_EVENT = /^\{"type":"pot","balls":\[(\d)\]\}$/;

  function button(b) {
    var btn = el("button", b.cls);
    btn.appendChild(document.createTextNode(b.label));
    if (b.small) { btn.appendChild(document.createTextNode(" ")); btn.appendChild(el("small", "", b.small)); }
    if (b.event) { btn.name = "event"; btn.value = b.event; } else { btn.type = "button"; }
    if (!b.enabled) btn.disabled = true;
    if (b.action) btn.setAttribute("data-local-action", b.action);
    return btn;
  }

  /* Draw the engine's view (sinuca.tablet.tablet_view) on the board and the controls. The server's
     next answer or socket message replaces all of it with the server's own rendering. */
  function showLocal(v, description) {
    var live = document.getElementById("ref-live");
    if (!live || !v) return;
    live.setAttribute("data-local", "1");
    var players = live.querySelectorAll(".ref-player");
    v.players.forEach(function (p, i) {
      var box = players[i];
      if (!box) return;
      box.classList.toggle("at-table", p.at_table);
      box.classList.toggle("winner", v.winner === i);
      var name = box.querySelector(".ref-name"), score = box.querySelector(".ref-score");
      if (name) name.textContent = (p.at_table ? "▶ " : "") + p.name;
      if (score) score.textContent = String(p.score);
      var frames = box.querySelector(".ref-frames");
      if (frames) frames.textContent = frames.textContent.replace(/\d+/, String(p.frames));
    });
    var dds = live.querySelectorAll(".ref-facts dd");
    var brk = live.querySelector(".ref-break");
    if (brk) brk.textContent = String(v["break"]);
    var on = live.querySelector(".ref-ballon");
    if (on) {
      on.textContent = "";
      if (!v.ball_on.length) on.textContent = "—";
      v.ball_on.forEach(function (b) { on.appendChild(el("span", "dot ball-" + b)); });
    }
    // no stroke is due (before the lot, after the frame): a dash, as the server's page shows
    var due = v.phase === "play" || v.phase === "decision";
    if (dds[3]) dds[3].textContent = due ? String(v.points_remaining) : "—";
    if (dds[4]) dds[4].textContent = String(v.reds_remaining);
    if (dds[5]) dds[5].textContent = due ? String(v.snookers_required) : "—";
    var banners = live.querySelector(".ref-banners");
    if (banners && v.banner_rows) {
      banners.textContent = "";
      v.banner_rows.forEach(function (b) {
        var d = el("div", b.cls, b.text);
        if (b.alert) d.setAttribute("role", "alert");
        banners.appendChild(d);
      });
    }
    var log = live.querySelector(".ref-log");
    if (log && !description && v.recent && v.recent.length) {
      // a whole new position (a reload offline, a resync): the list from the engine's log
      log.textContent = "";
      v.recent.forEach(function (d) {
        var item = el("li", "local");
        item.appendChild(el("span", "seq", "•"));
        item.appendChild(document.createTextNode(" " + d));
        log.appendChild(item);
      });
    }
    if (log && description) {
      var li = el("li", "local");
      li.appendChild(el("span", "seq", "•"));
      li.appendChild(document.createTextNode(" " + description));
      var empty = log.querySelector("li.muted");
      if (empty) empty.remove();
      log.insertBefore(li, log.firstChild);
      while (log.children.length > 8) log.removeChild(log.lastChild);
    }
    if (description) flashMessage(description, "info");
    var form = live.querySelector("form.ref-controls");
    if (!form) return;
    lastView = v;
    drawControls(form, v);
    document.dispatchEvent(new CustomEvent("tablet:drawn", {detail: {position: v.position}}));
  }

  var lastView = null;  // the engine's view last drawn (its position keys the Art. 28 answer)

  /* The controls of the engine's view (sinuca.tablet.tablet_view's rows) drawn with the markup
     of the server's template (referee.html): the same classes, values and words, so a button
     keeps its place and look whether the server or the engine drew it. */
  function drawControls(form, v) {
    var keep = form.querySelector("input[name=expected_seq]"), oldMore = form.querySelector("details.more");
    var wasOpen = !!(oldMore && oldMore.open);
    form.textContent = "";
    if (keep) form.appendChild(keep);
    var rowCls = {balls: "row balls ref-balls", reds: "row ref-reds", actions: "row ref-actions", lot: "row",
                  next: "row", bonus: "row balls"};
    v.controls.forEach(function (row) {
      if (row.kind === "title") { form.appendChild(el("h2", "ref-head", row.title)); return; }
      if (row.kind === "penalty") { form.appendChild(el("p", "penalty", row.title)); return; }
      if (row.kind === "result") {
        row.texts.forEach(function (x) { form.appendChild(el(x.tag, x.cls, x.text)); });
        return;
      }
      if (row.kind === "decision") {
        var list = el("div", "decision-list");
        row.buttons.forEach(function (b) {
          var c = button(b);
          c.textContent = "";
          c.setAttribute("data-choice", b.choice);
          c.appendChild(el("span", "choice-label", b.label));
          c.appendChild(document.createTextNode(" "));  // as the template's line break: the same text
          c.appendChild(el("span", "choice-explain", b.explain));
          list.appendChild(c);
        });
        form.appendChild(list);
        return;
      }
      if (row.kind === "undo") { form.appendChild(confirmable(row, "row confirmable undo")); return; }
      if (row.kind === "art28") {
        var a = el("div", "row art28");
        a.setAttribute("data-position", row.position);
        a.appendChild(el("span", "q", row.title));
        row.buttons.forEach(function (b) {
          var btn = button(b);
          btn.setAttribute("data-answer", b.answer);
          btn.setAttribute("aria-pressed", "false");
          btn.setAttribute("hx-post", art28Url());
          btn.setAttribute("hx-vals", JSON.stringify({answer: b.answer}));
          btn.setAttribute("hx-swap", "none");
          a.appendChild(btn);
        });
        form.appendChild(a);
        if (window.htmx) window.htmx.process(a);
        return;
      }
      if (row.kind === "freeball") {
        var fb = el("div", "freeball");
        fb.appendChild(el("p", "fb-title", row.title));
        var fr = el("div", "row balls");
        row.buttons.forEach(function (b) { fr.appendChild(button(b)); });
        fb.appendChild(fr);
        form.appendChild(fb);
        return;
      }
      if (row.kind === "more") {
        var more = el("details", "more");
        more.open = wasOpen;
        more.appendChild(el("summary", "", row.title));
        row.rows.forEach(function (r) {
          if (r.kind === "confirm") { more.appendChild(confirmable(r, "row confirmable")); return; }
          var plain = el("div", "row");
          r.buttons.forEach(function (b) { plain.appendChild(button(b)); });
          more.appendChild(plain);
        });
        form.appendChild(more);
        return;
      }
      var wrap = el("div", rowCls[row.kind] || "row");
      row.buttons.forEach(function (b) { wrap.appendChild(button(b)); });
      form.appendChild(wrap);
    });
  }

  /* A row that asks before it acts (.confirmable): the ask button, then what it will do. */
  function confirmable(row, cls) {
    var box = el("div", cls), btns = row.buttons.map(button);
    var confirm = el("span", "confirm");
    confirm.appendChild(el("span", "confirm-what", row.title));
    confirm.appendChild(btns[1]);
    confirm.appendChild(btns[2]);
    box.appendChild(btns[0]);
    box.appendChild(confirm);
    return box;
  }

  function art28Url() {
    return eventUrl().replace(/event\/$/, "art28/");
  }

  /* The Art. 28 answer the referee gave for this position (kept by referee-ui.js), to tick
     "aggravated" in the foul dialog as the server's dialog does. */
  function art28Declared() {
    try {
      var saved = JSON.parse(sessionStorage.getItem("sinuca.art28." + matchId) || "null");
      var row = document.querySelector("#ref-live .art28");
      var position = row ? row.getAttribute("data-position") : (lastView && lastView.position);
      return !!(saved && saved.answer === "yes" && saved.position === position);
    } catch (e) { return false; }
  }

  // Buttons drawn from the engine's view: the foul dialog and the confirmations.
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("[data-local-action]");
    if (!b) return;
    var a = b.getAttribute("data-local-action");
    if (a === "ask") b.closest(".confirmable").classList.add("confirming");
    else if (a === "cancel") b.closest(".confirmable").classList.remove("confirming");
    else if (a === "foul") openLocalFoul();
  });
  // The server's "Falta…" needs the network: offline, or with taps still queued (the server's
  // dialog would show the table without them), the engine's dialog opens instead.
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("#ref-live button.foul[hx-get]");
    if (!b || !engineOn()) return;
    if (state === "offline" || navigator.onLine === false || memory.length) {
      e.preventDefault();
      e.stopImmediatePropagation();
      openLocalFoul();
    }
  }, true);

  function chip(c) {
    var lab = el("label", c.name === "potted_reds" ? "chip chip-n" : "chip"), inp = el("input");
    inp.type = c.type; inp.name = c.name; inp.value = c.value; inp.checked = !!c.checked;
    lab.appendChild(inp);
    if (c.ball) lab.appendChild(el("span", "dot ball-" + c.ball));
    lab.appendChild(el("span", "", c.label));
    return lab;
  }

  function chips(choices) {
    var box = el("div", "chips");
    choices.forEach(function (c) { box.appendChild(chip(c)); });
    return box;
  }

  /* The foul dialog of sinuca.tablet.foul_form, drawn with the markup of the server's dialog
     (referee.html#foul_form): the colour aimed at first when one is owed, nothing preselected and
     "Confirmar falta" disabled until it is answered (referee-ui.js's gate, as on the server's);
     its preview lines are the engine's foul_preview in explain's words. */
  function openLocalFoul() {
    var dlg = document.getElementById("foul-dialog"), bodyEl = document.getElementById("foul-body");
    if (!dlg || !bodyEl) return;
    engine.call({op: "foul_form", declared: art28Declared()}).then(function (res) {
      var f = res.form;
      bodyEl.textContent = "";
      var form = el("form", "foul-form local");
      form.id = "foul-form";
      if (f.needs_nomination) {
        form.setAttribute("data-needs-nomination", "");
        form.setAttribute("data-striker", String(f.striker));
      }
      form.appendChild(el("h2", "", f.title));
      var fields = el("div", "foul-fields");
      f.fields.forEach(function (x) {
        var fs = el("fieldset", x.cls || null);
        fs.appendChild(el("legend", "", x.legend));
        fs.appendChild(chips(x.choices));
        if (x.more) {
          var more = el("details", "more-kinds");
          more.appendChild(el("summary", "", x.more.summary));
          x.more.groups.forEach(function (g) {
            more.appendChild(el("p", "kind-group", g.label));
            more.appendChild(chips(g.choices));
          });
          fs.appendChild(more);
        }
        // the colour aimed at and the kind of foul come first, the rest in the scrolling fields
        (x.cls === "nominated-q" || x.cls === "kinds" ? form : fields).appendChild(fs);
      });
      form.appendChild(fields);
      var actions = el("div", "foul-actions");
      var pv = el("div", "foul-preview");
      pv.id = "foul-preview";
      pv.setAttribute("aria-live", "polite");
      actions.appendChild(pv);
      var row = el("div", "row");
      var ok = el("button", "big danger", t("Confirmar falta", "Confirm foul"));
      ok.type = "button";
      ok.setAttribute("data-close-dialog", "");
      ok.disabled = !!f.needs_nomination;
      var cancel = el("button", "big", t("Cancelar", "Cancel"));
      cancel.type = "button";
      cancel.addEventListener("click", function () { dlg.close(); });
      ok.addEventListener("click", function () {
        var started = performance.now();
        var params = [];
        new FormData(form).forEach(function (v, k) { params.push([k, String(v)]); });
        engine.call({op: "foul_preview", fields: fieldsOf(params)}).then(function (r) {
          if (r.ask) { show(r); return; }  // the colour aimed at is not said: nothing is recorded
          var item = {
            key: (window.crypto && crypto.randomUUID) ? crypto.randomUUID() : Date.now().toString(36) + Math.random().toString(36).slice(2),
            url: form.getAttribute("data-event-url"), event: r.event, label: t("Falta", "Foul"),
            params: [["event", JSON.stringify(r.event)]], closeDialog: true, at: Date.now()
          };
          takeWithEngine(item, {}, started);
        });
      });
      row.appendChild(ok);
      row.appendChild(cancel);
      actions.appendChild(row);
      form.appendChild(actions);
      form.setAttribute("data-event-url", eventUrl());
      function show(p) {
        pv.textContent = "";
        p.lines.forEach(function (l) { pv.appendChild(el("p", l.cls, l.text)); });
      }
      function preview() {
        var params = [];
        new FormData(form).forEach(function (v, k) { params.push([k, String(v)]); });
        engine.call({op: "foul_preview", fields: fieldsOf(params)}).then(show);
      }
      form.addEventListener("change", preview);
      bodyEl.appendChild(form);
      preview();
      if (!dlg.open) dlg.showModal();
    });
  }
  function eventUrl() {
    var f = document.querySelector("#ref-live form.ref-controls");
    return (f && f.getAttribute("hx-post")) || ("/matches/" + matchId + "/referee/event/");
  }

  /* The engine follows the server's log plus the taps still queued (unless the queue is stopped:
     then the board is the server's). */
  var resyncing = null;
  function resync(redraw) {
    if (!engineOn()) return Promise.resolve();
    var run = function () {
      return engine.syncLog().catch(function () { return 0; }).then(function () {
        var events = engine.serverEvents().slice();
        if (state !== "blocked") memory.forEach(function (q) { if (q.event) events.push(q.event); });
        return engine.call({op: "reset", events: events});
      }).then(function (res) {
        if (res && res.ok && (redraw || (state !== "blocked" && res.count !== shownSeq()))) showLocal(res.view);
      });
    };
    resyncing = (resyncing || Promise.resolve()).then(run, run);
    return resyncing;
  }

  document.addEventListener("engine:ready", function () {
    resync().then(function () { render(); });
  });
  document.addEventListener("engine:failed", function () { render(); });
  // A socket message or an answer replaced the board: with taps still queued, the engine's view
  // (ahead of the server by those taps) goes back on top.
  document.addEventListener("live:applied", function (e) {
    if (!engineOn()) return;
    var seq = e.detail && e.detail.seq;
    if (seq > engine.serverEvents().length + (state === "sending" ? 1 : 0)) resync();
    else if (memory.length && state !== "blocked" && state !== "sending") resync();
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
    timings: function () { return timings.slice(); },
    lastMarks: function () { return lastMarks; },
    items: function () { return JSON.parse(JSON.stringify(memory)); }
  };

  render();
  if (memory.length && state !== "blocked") flush();  // taps left by a reload or a closed tab
})();
