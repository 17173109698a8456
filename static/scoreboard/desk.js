/* The desk's actions and clocks. The board itself is pushed (boards.js); buttons carry their
 * action as JSON (data-act) and are posted with the staff session's CSRF token; a refusal's
 * message (Portuguese or English, as the page) shows at the top. The W.O. tolerance clocks and
 * "last seen" count on the client from the times the board carries: nothing is polled. */
(function () {
  "use strict";
  var body = document.body, url = body.getAttribute("data-action-url"), csrf = body.getAttribute("data-csrf");
  var msg = document.getElementById("desk-msg");
  var EN = (document.documentElement.lang || "").indexOf("en") === 0;
  function say(text, ok) { msg.textContent = text; msg.hidden = !text; msg.className = "desk-msg" + (ok ? " ok" : " err"); }
  function post(data) {
    return fetch(url, {method: "POST", credentials: "same-origin",
                       headers: {"Content-Type": "application/json", "X-CSRFToken": csrf},
                       body: JSON.stringify(data)})
      .then(function (r) { return r.json().then(function (d) { return {ok: r.ok, d: d}; }); })
      .then(function (a) { say(a.ok ? "" : (a.d.error && a.d.error.message) || "erro", a.ok); return a.ok; })
      .catch(function () { say(EN ? "No connection to the server" : "Sem conexão com o servidor", false); return false; });
  }
  document.addEventListener("click", function (e) {
    var b = e.target.closest("[data-act]");
    if (b) {
      var data = JSON.parse(b.getAttribute("data-act"));
      var forTable = b.getAttribute("data-with-table");
      if (forTable) {
        var sel = b.parentNode.querySelector('select[data-table-for="' + forTable + '"]');
        if (sel) data.table = sel.value;
      }
      if (b.hasAttribute("data-confirm") && !window.confirm(b.textContent.trim() + "?")) return;
      if (b.hasAttribute("data-ask-reason")) {  // a table out of service: why (optional), or cancel
        var why = window.prompt(b.textContent.trim() + (EN ? ": reason (optional)" : ": motivo (opcional)"), "");
        if (why === null) return;
        data.reason = why.trim();
      }
      if (b.hasAttribute("data-reason")) {  // a W.O. needs its reason (the súmula prints it)
        var wo = window.prompt(b.textContent.trim() + " — " + (EN ? "reason" : "motivo"),
                               EN ? "did not appear within the tolerance" : "não compareceu no prazo de tolerância");
        if (wo === null) return;
        data.reason = wo;
      }
      post(data);
      return;
    }
    var c = e.target.closest("[data-correct]");
    if (c) {
      var w = window.prompt(EN ? "Winner: 0 (player A) or 1 (player B)" : "Vencedor: 0 (jogador A) ou 1 (jogador B)");
      if (w === null) return;
      var fr = window.prompt(EN ? "Frames, e.g. 2-1" : "Partidas, ex. 2-1");
      if (fr === null) return;
      var reason = window.prompt(EN ? "Reason" : "Motivo");
      if (reason === null) return;
      var parts = fr.split(/[^0-9]+/).filter(Boolean).map(Number);
      post({action: "correct", match: +c.getAttribute("data-correct"), reason: reason,
            result: {winner: +w, frames: parts.slice(0, 2)}});
    }
  });
  // the redraw (action "redraw", before the first start): method, seed, and for a manual draw
  // the order or the groups as JSON ([1, 8, 4, 5] or [[1, 4], [2, 3]])
  document.addEventListener("submit", function (e) {
    var f = e.target.closest(".redraw-form");
    if (!f) return;
    e.preventDefault();
    var data = {action: "redraw", method: f.elements.method.value};
    var seed = f.elements.seed.value.trim();
    if (seed !== "") data.seed = parseInt(seed, 10);
    if (data.method === "manual") {
      try { data.manual = JSON.parse(f.elements.manual.value); }
      catch (err) { say(EN ? "Manual draw: write the numbers as [1, 8, 4, 5] or [[1, 4], [2, 3]]"
                           : "Sorteio manual: escreva os números como [1, 8, 4, 5] ou [[1, 4], [2, 3]]", false); return; }
    }
    if (!window.confirm(f.querySelector("button").textContent.trim() + "?")) return;
    post(data).then(function (ok) { if (ok) f.removeAttribute("data-dirty"); });
  });
  // a tie's lineup (action "lineup"): each rubber's selects in order, one name each
  document.addEventListener("submit", function (e) {
    var f = e.target.closest(".lineup-form");
    if (!f) return;
    e.preventDefault();
    var rubbers = [];
    Array.prototype.forEach.call(f.querySelectorAll("select"), function (s) {
      var i = +s.name.slice(1);
      (rubbers[i] = rubbers[i] || []).push(s.value);
    });
    post({action: "lineup", tie: +f.getAttribute("data-tie"), side: f.getAttribute("data-side"), lineup: rubbers})
      .then(function (ok) { if (ok) f.removeAttribute("data-dirty"); });
  });
  // a lineup changed and not saved yet is kept across pushes (boards.js)
  document.addEventListener("change", function (e) {
    var f = e.target.closest(".lineup-form, .redraw-form");
    if (f) f.setAttribute("data-dirty", "");
  });
  function pad(n) { return (n < 10 ? "0" : "") + n; }
  function tick() {
    var now = Date.now();
    Array.prototype.forEach.call(document.querySelectorAll("[data-deadline]"), function (el) {
      var left = Math.round((Date.parse(el.getAttribute("data-deadline")) - now) / 1000);
      el.textContent = left > 0 ? Math.floor(left / 60) + ":" + pad(left % 60) : "0:00";
      el.classList.toggle("late", left <= 0);
    });
    Array.prototype.forEach.call(document.querySelectorAll("[data-seen]"), function (el) {
      var s = Math.max(0, Math.round(now / 1000 - parseFloat(el.getAttribute("data-seen"))));
      el.textContent = s < 60 ? s + " s" : Math.floor(s / 60) + " min";
    });
  }
  setInterval(tick, 1000);
  tick();
  // the pushed board replaces #desk-board (a child of body): count again at once
  new MutationObserver(tick).observe(body, {childList: true});
})();
