/* Referee tablet, the screen's own behaviour (the tap queue lives in referee.js):
 *  - a repeated identical tap within half a second is dropped: two "Sem ponto" 250 ms apart are
 *    one finger bouncing, not two misses (the second tap would land on the re-rendered button);
 *  - in the foul dialog, "Confirmar falta" stays disabled until the colour aimed at is chosen
 *    while a colour is owed (the penalty depends on it; nothing is preselected);
 *  - a confirmation (undo, concede frame or match, re-rack) never arms under the tapping finger:
 *    its buttons appear where "Desfazer…"/"… desiste…" was, so a double tap would confirm; they
 *    stay disabled (and look it) for ARM_MS after they appear.
 *  - this guard against a repeated tap is the only one (the queue and the form keep none);
 *  - the renderer's gestures (data-action: ask, cancel, close the dialog) are handled here.
 * Loaded before referee.js, so its capturing listener sees a tap before the queue takes it.
 */
(function () {
  "use strict";
  if (!document.getElementById("ref-live")) return;
  var REPEAT_MS = 500;
  var EN = (document.documentElement.lang || "").indexOf("en") === 0;
  var last = {sig: "", at: 0};

  function signature(d) {
    var parts = [d.path];
    if (d.formData && d.formData.forEach) {
      d.formData.forEach(function (v, k) {
        if (k !== "key" && k !== "expected_seq" && typeof v === "string") parts.push(k + "=" + v);
      });
    }
    return parts.join("&");
  }

  window.addEventListener("htmx:configRequest", function (e) {
    var d = e.detail, elt = d.elt;
    if (d.verb !== "post" || !elt || !elt.closest || !elt.closest("[data-live-response]")) return;
    var sig = signature(d), now = Date.now();
    if (sig === last.sig && now - last.at < REPEAT_MS) {
      e.preventDefault();
      e.stopImmediatePropagation();  // the queue (referee.js) never sees it
      var m = document.getElementById("ref-msg");
      if (m) {
        m.className = "msg msg-warn";
        m.textContent = EN ? "Repeated tap ignored (same button within half a second)"
                           : "Toque repetido ignorado (mesmo botão em menos de meio segundo)";
      }
      return;
    }
    last = {sig: sig, at: now};
  }, true);

  // Any other tap in between (a dialog, "discard", a confirmation's "cancel") makes the next one
  // deliberate: only a tap straight after the same one is taken for a bounce.
  document.addEventListener("click", function (e) {
    var t = e.target && e.target.closest ? e.target.closest("button, summary, label, a") : null;
    if (!t || !(t.matches("button[name=event]") || t.hasAttribute("data-close-dialog"))) last = {sig: "", at: 0};
  }, true);

  // The Art. 28 answer stays marked while the position is the same, also on its replay after a
  // retorno (the server keeps it the same way, for the foul dialog's "aggravated" box).
  var ART28 = "sinuca.art28." + ((document.body.getAttribute("data-live-ws") || "").match(/\/matches\/(\d+)\//) || [])[1];
  function markArt28() {
    var row = document.querySelector("#ref-live .art28");
    if (!row) return;
    var saved = null;
    try { saved = JSON.parse(sessionStorage.getItem(ART28) || "null"); } catch (e) { saved = null; }
    var answer = saved && saved.position === row.getAttribute("data-position") ? saved.answer : "";
    Array.prototype.forEach.call(row.querySelectorAll("button[data-answer]"), function (b) {
      b.setAttribute("aria-pressed", String(b.getAttribute("data-answer") === answer));
    });
  }
  document.addEventListener("click", function (e) {
    var b = e.target && e.target.closest ? e.target.closest("#ref-live .art28 button[data-answer]") : null;
    if (!b) return;
    try {
      sessionStorage.setItem(ART28, JSON.stringify({position: b.closest(".art28").getAttribute("data-position"),
                                                    answer: b.getAttribute("data-answer")}));
    } catch (err) { /* private mode: the server still keeps the answer */ }
    markArt28();
    // the answer is confirmed at once, offline too (the server's answer says the same words)
    var m = document.getElementById("ref-msg"), said = b.getAttribute("data-said");
    if (m && said) {
      m.className = "msg msg-" + (b.getAttribute("data-answer") === "yes" ? "warn" : "info");
      m.textContent = said;
    }
  });
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
    if (!form || !form.hasAttribute("data-needs-nomination")) return;
    var btn = form.querySelector("button[data-close-dialog]");
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
