/* The referee page's first script, run in <head> before any control exists: until referee.js lifts
 * js-wait, a tap on a control is refused and says so (it would otherwise submit its form as a page
 * load). Inline, so that it holds even when no script file arrives; the Content-Security-Policy
 * allows it by its hash (settings.INLINE_SCRIPT_HASHES), not by 'unsafe-inline'. */
(function () {
  var root = document.documentElement, en = (root.lang || "").indexOf("en") === 0;
  root.classList.add("js-wait");
  document.addEventListener("click", function (e) {
    var b = root.classList.contains("js-wait") && e.target.closest
      && e.target.closest("#ref-live button, #ref-live summary, #foul-dialog button");
    if (!b) return;
    e.preventDefault();
    e.stopImmediatePropagation();
    var m = document.getElementById("ref-msg");
    if (m) {
      m.className = "msg msg-warn";
      m.textContent = en ? "Wait — loading: that tap was not taken" : "Aguarde — carregando: o toque não foi registrado";
    }
  }, true);
})();
