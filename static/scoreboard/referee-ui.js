/* Referee tablet, the screen's own behaviour (the tap queue lives in referee.js):
 *  - the tap guard (window.refereeGuard, asked first by referee.js for every tap): a tap is made
 *    against the board it was seen on, so it is dropped, with a short flash saying why, when
 *      · it lands where this tablet's previous tap landed less than half a second before, on any
 *        button (by the page's clock, or by the two touches' own times, however late the page
 *        ran their handlers): one finger's double tap, whose second tap meets what the first tap drew there
 *        ("Jogar" twice would store the choice and then the red drawn in its place);
 *      · this tablet's previous tap is still being drawn (the board under the finger is already
 *        gone);
 *      · its control was drawn for another board than the one shown (the foul dialog opened
 *        before another tablet scored), or the board was replaced by something other than this
 *        tablet's own tap (another tablet, a resync) less than half a second before;
 *  - in the foul dialog, "Confirmar falta" stays disabled until the colour aimed at is chosen
 *    while a colour is owed (the penalty depends on it; nothing is preselected), and while
 *    nobody is at the table until the disciplinary kind and its offender are chosen;
 *  - a confirmation (undo, concede frame or match, re-rack) never arms under the tapping finger:
 *    its buttons appear where "Desfazer…"/"… desiste…" was, so a double tap would confirm; they
 *    stay disabled (and look it) for ARM_MS after they appear.
 *  - the renderer's gestures (data-action: ask, cancel, close the dialog) are handled here.
 * Times are Date.now(): the moment a person sees, and what a test can set.
 */
(function () {
  "use strict";
  if (!document.getElementById("ref-live")) return;
  var WINDOW_MS = 500;   // a double tap, or a board too new to have been seen
  var SPOT_PX = 32;      // a finger's second tap lands this close to its first
  var EN = (document.documentElement.lang || "").indexOf("en") === 0;
  function t(pt, en) { return EN ? en : pt; }

  /* ---------- the board shown, and when it changed ---------- */
  // The board's identity is its controls' data-board ("seq:phase", drawn by the renderer): the
  // server's answer to a tap the engine drew already is the same board, not a change.
  function boardKey() {
    var f = document.querySelector("#ref-live form.ref-controls");
    return f ? f.getAttribute("data-board") || "" : "";
  }
  var shown = boardKey();
  var lastTap = {x: NaN, y: NaN, at: -Infinity, stamp: -Infinity};  // this tablet's last tap taken
  var foreignAt = -Infinity;                        // the board last replaced by anything else
  var pointer = {x: NaN, y: NaN, stamp: NaN};       // where and when the finger last came down
  var freshTimer = null;

  function boardDrawn() {
    var key = boardKey(), now = Date.now();
    if (key === shown) return;
    shown = key;
    var q = window.refereeQueue;
    // this tablet's own tap drawn (by its engine, or the server's answer to it): its bounce is
    // the spot's business; anything else (another tablet, a resync, a reload's queue) is new
    var own = q && (q.applying() || q.state() === "sending");
    if (own) return;
    foreignAt = now;
    // the new board is marked while a tap on it is still taken for one aimed at the old one
    document.body.classList.add("board-fresh");
    if (freshTimer) clearTimeout(freshTimer);
    freshTimer = setTimeout(function () { document.body.classList.remove("board-fresh"); }, WINDOW_MS);
  }
  document.addEventListener("live:applied", boardDrawn);
  document.addEventListener("live:restated", boardDrawn);
  document.addEventListener("tablet:drawn", boardDrawn);

  // A tap's own time is its event's (the moment the finger came down, on the event clock), not
  // the moment its handler runs: a page thread busy between two taps of one double tap (the
  // engine starting, a slow tablet) ran the second handler more than the window after the
  // first, and the second tap was taken.
  document.addEventListener("pointerdown", function (e) { pointer = {x: e.clientX, y: e.clientY, stamp: e.timeStamp}; }, true);
  document.addEventListener("click", function (e) {
    // a click made by the keyboard has no place (0, 0): the pointer's stays
    if (e.detail) pointer = {x: e.clientX, y: e.clientY, stamp: e.timeStamp};  // the finger lifted
    else pointer.stamp = e.timeStamp;  // a key pressed
    // the bounce of a tap taken, on a control that sends nothing (an undo's "Desfazer…" drawn
    // where its "Confirmar" was, "Falta…"): it would open a question nobody asked
    var c = e.target && e.target.closest ? e.target.closest("#ref-live button, #ref-live summary, #foul-dialog button") : null;
    if (!c || (c.matches("button[name=event]") || c.hasAttribute("hx-post"))) return;  // a tap: the guard's check
    if (bounce(Date.now())) {
      e.preventDefault();
      e.stopImmediatePropagation();
      flash(t("Toque duplo ignorado: o segundo toque caiu no que o primeiro desenhou",
              "Double tap ignored: the second tap landed on what the first one drew"));
    }
  }, true);
  function bounce(now) {
    var near = !(Math.abs(pointer.x - lastTap.x) > SPOT_PX || Math.abs(pointer.y - lastTap.y) > SPOT_PX);
    // within the window on the page's clock (what a test sets) or between the two events
    return near && (now - lastTap.at < WINDOW_MS || pointer.stamp - lastTap.stamp < WINDOW_MS);
  }

  /* A short flash over the board: what happened to a tap that was not taken. */
  var flashTimer = null;
  function flash(text) {
    var box = document.getElementById("tap-flash");
    if (!box) return;
    box.textContent = text;
    box.hidden = false;
    box.classList.remove("on");
    void box.offsetWidth;  // the flash starts again for a second dropped tap
    box.classList.add("on");
    if (flashTimer) clearTimeout(flashTimer);
    flashTimer = setTimeout(function () { box.hidden = true; box.classList.remove("on"); }, 2200);
  }

  /* A text the page writes itself (a message, a refusal) into ``box``, each article it cites a
     tap as the renderer draws them (presentation.referee_html.cited: span.art[data-art] held in
     one span, which referee.js opens): text nodes and elements only, never innerHTML of a
     message. The pattern is the rulebook's citation (sinuca.rulebook._CITE). */
  var REF = "\\d+(?:\\.\\d+)*(?:\\.[a-z])?";
  var CITE = new RegExp("\\bArts?\\.\\s*(" + REF + "(?:\\s*(?:,|\u2013|-|\\be\\b|\\band\\b)\\s*" + REF +
                        "\\b(?![%\\w]))*)", "g");
  function cited(box, text) {
    text = text == null ? "" : String(text);
    var parts = [], at = 0, m, r;
    CITE.lastIndex = 0;
    while ((m = CITE.exec(text))) {
      var from = m.index + m[0].length - m[1].length, refs = new RegExp(REF, "g");
      while ((r = refs.exec(m[1]))) {
        parts.push(text.slice(at, from + r.index), [r[0]]);
        at = from + r.index + r[0].length;
      }
    }
    parts.push(text.slice(at));
    box.textContent = "";
    if (parts.length === 1) { box.textContent = text; return; }
    var hold = box.appendChild(document.createElement("span"));
    parts.forEach(function (p) {
      if (typeof p === "string") { if (p) hold.appendChild(document.createTextNode(p)); return; }
      var a = document.createElement("span");
      a.className = "art";
      a.setAttribute("data-art", p[0]);
      a.setAttribute("role", "button");
      a.setAttribute("tabindex", "0");
      a.textContent = p[0];
      hold.appendChild(a);
    });
  }
  window.refereeCited = cited;

  /* The seq of the board a control was drawn on: its form's expected_seq (the board's controls
     and the foul dialog each carry theirs). */
  function controlSeq(elt) {
    var form = elt && (elt.tagName === "FORM" ? elt : elt.closest("form") ||
      (elt.getAttribute("hx-include") && document.querySelector(elt.getAttribute("hx-include"))));
    var input = form && form.querySelector('input[name="expected_seq"]');
    return input ? input.value : null;
  }

  window.refereeGuard = {
    window: WINDOW_MS,
    flash: flash,
    /* Whether the tap ``d`` (htmx's request detail) may go on: null, or why it is dropped (the
       flash says so). ``applying``: this tablet's previous tap is still being drawn. */
    check: function (d, applying) {
      var now = Date.now(), why = null;
      var seq = controlSeq(d.elt), board = shown.split(":")[0];
      if (applying) {
        why = t("Toque ignorado: o toque anterior ainda está sendo desenhado",
                "Tap ignored: the previous tap is still being drawn");
      } else if (bounce(now)) {
        why = t("Toque duplo ignorado: o segundo toque caiu no que o primeiro desenhou",
                "Double tap ignored: the second tap landed on what the first one drew");
      } else if ((seq !== null && board !== "" && seq !== board) || now - foreignAt < WINDOW_MS) {
        why = t("Toque ignorado: o placar mudou antes do toque — confira e toque de novo",
                "Tap ignored: the board changed before the tap — check it and tap again");
      }
      if (why && seq !== board && d.elt.closest && d.elt.closest("#foul-dialog")) {
        var dlg = document.getElementById("foul-dialog");  // drawn for an earlier board: the new one shows
        if (dlg && dlg.open) dlg.close();
      }
      if (why) flash(why);
      return why;
    },
    /* Whether a tap at (x, y) now would be taken as far as time and place go (for a test that
       taps as fast as a machine: it waits for this, not a fixed time). */
    ready: function (x, y) {
      var now = Date.now(), q = window.refereeQueue;
      var near = !(Math.abs(x - lastTap.x) > SPOT_PX || Math.abs(y - lastTap.y) > SPOT_PX);
      var since = new Event("ready").timeStamp - lastTap.stamp;  // on the events' clock
      return !(q && q.applying()) && !(near && (now - lastTap.at < WINDOW_MS || since < WINDOW_MS)) &&
        now - foreignAt >= WINDOW_MS;
    },
    /* The tap was taken: the next one at this spot within the window is its bounce. */
    took: function () { lastTap = {x: pointer.x, y: pointer.y, at: Date.now(), stamp: pointer.stamp}; }
  };

  // The Art. 28 answer belongs to the stroke it was asked for (the row's data-seq, the board's
  // seq): any stroke after it (a safety, an undo, a retorno's replay) clears it, even when the
  // position looks the same again.
  var ART28 = "sinuca.art28." + ((document.body.getAttribute("data-live-ws") || "").match(/\/matches\/(\d+)\//) || [])[1];
  function savedArt28() {
    try { return JSON.parse(sessionStorage.getItem(ART28) || "null"); } catch (e) { return null; }
  }
  function markArt28() {
    var row = document.querySelector("#ref-live .art28"), saved = savedArt28();
    // a later stroke clears it; a board behind it (a reload's page before the engine draws the
    // queued taps) does not
    var seq = shown.split(":")[0];
    if (saved && +seq > +saved.seq) {
      try { sessionStorage.removeItem(ART28); } catch (e) { /* nothing kept */ }
      saved = null;
    }
    if (!row) return;
    var answer = saved && saved.seq === row.getAttribute("data-seq") ? saved.answer : "";
    Array.prototype.forEach.call(row.querySelectorAll("button[data-answer]"), function (b) {
      b.setAttribute("aria-pressed", String(b.getAttribute("data-answer") === answer));
    });
  }
  /* The answer kept when its tap is taken (referee.js, after the guard): a dropped tap keeps none. */
  window.refereeGuard.art28 = function (b) {
    try {
      sessionStorage.setItem(ART28, JSON.stringify({seq: b.closest(".art28").getAttribute("data-seq"),
                                                    answer: b.getAttribute("data-answer")}));
    } catch (err) { /* private mode: the server still keeps the answer */ }
    markArt28();
    // the answer is confirmed at once, offline too (the server's answer says the same words)
    var m = document.getElementById("ref-msg"), said = b.getAttribute("data-said");
    if (m && said) {
      m.className = "msg msg-" + (b.getAttribute("data-answer") === "yes" ? "warn" : "info");
      cited(m, said);
    }
  };
  /* Discarded taps take the answer given on top of them along. */
  window.refereeGuard.forgetArt28 = function () {
    try { sessionStorage.removeItem(ART28); } catch (e) { /* nothing kept */ }
    markArt28();
  };
  /* The answer for the board shown ("yes", "no" or ""): the foul dialog ticks "aggravated" from it. */
  window.refereeGuard.art28Answer = function () {
    var saved = savedArt28(), row = document.querySelector("#ref-live .art28");
    return saved && row && saved.seq === row.getAttribute("data-seq") && saved.seq === shown.split(":")[0]
      ? saved.answer : "";
  };
  document.addEventListener("live:applied", markArt28);
  document.addEventListener("live:restated", markArt28);
  document.addEventListener("tablet:drawn", markArt28);  // the engine drew the controls (referee.js)
  markArt28();

  // A confirmation's buttons ignore taps for ARM_MS after they appear: the second tap of a double
  // tap lands on the spot the question was asked from, where "Confirmar" now is.
  var ARM_MS = 600;
  function arm(box) {
    var held = [];
    Array.prototype.forEach.call(box.querySelectorAll(".confirm button, .undo-confirm button"), function (b) {
      if (!b.disabled) { b.disabled = true; held.push(b); }
    });
    box.classList.add("arming");
    setTimeout(function () {
      held.forEach(function (b) { b.disabled = false; });
      box.classList.remove("arming");
    }, ARM_MS);
  }
  new MutationObserver(function (records) {
    records.forEach(function (r) {
      var box = r.target;
      var was = (r.oldValue || "").split(/\s+/).indexOf("confirming") >= 0;
      if (!was && box.classList && box.classList.contains("confirming")) arm(box);
    });
  }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ["class"], attributeOldValue: true});

  function nominationGate() {
    var form = document.getElementById("foul-form");
    if (!form) return;
    var btn = form.querySelector("button[data-close-dialog]");
    var needs = (form.getAttribute("data-needs-choice") || "").split(/\s+/).filter(Boolean);
    if (needs.length) {
      // nobody at the table: a disciplinary foul is stored once its kind and offender are chosen
      if (btn) btn.disabled = needs.some(function (n) { return !form.querySelector('input[name="' + n + '"]:checked'); });
      return;
    }
    if (!form.hasAttribute("data-needs-nomination")) return;
    // the engine says, per offender, the kinds whose penalty hangs on the colour aimed at
    var who = form.querySelector('input[name="player"]:checked');
    var kind = form.querySelector('input[name="kind"]:checked');
    var kinds = [];
    try { kinds = JSON.parse((who && who.getAttribute("data-nominates")) || "[]"); } catch (e) { kinds = []; }
    var asks = !!kind && kinds.indexOf(kind.value) >= 0;
    if (btn) btn.disabled = asks && !form.querySelector('input[name="nominated"]:checked');
  }
  document.addEventListener("change", nominationGate);
  document.addEventListener("htmx:afterSwap", nominationGate);
  document.addEventListener("tablet:foul-drawn", nominationGate);

  // The page's gestures on what the renderer drew (data-action): a confirmation asked or
  // cancelled, the foul dialog closed. One handler for the server's drawing and the engine's.
  document.addEventListener("click", function (e) {
    var b = e.target && e.target.closest ? e.target.closest("[data-action]") : null;
    if (!b || b.disabled) return;
    var a = b.getAttribute("data-action"), box = b.closest(".confirmable");
    if (a === "ask" && box) box.classList.add("confirming");
    else if (a === "cancel" && box) box.classList.remove("confirming");
    else if (a === "close-dialog") {
      var dlg = document.getElementById("foul-dialog");
      if (dlg && dlg.open) dlg.close();
    }
  });

  // "Mais ações" opens over the controls below it: any action tapped closes it (a redraw keeps
  // it open only while the referee is still choosing, referee.js showLocal)
  document.addEventListener("click", function (e) {
    var b = e.target && e.target.closest ? e.target.closest("#ref-live button[name=event]") : null;
    if (!b || b.disabled) return;
    setTimeout(function () {
      var more = document.querySelector("#ref-live details.more");
      if (more) more.open = false;
    }, 0);
  });
})();
