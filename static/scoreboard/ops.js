/* Event-day helpers of the TV and overlay pages, loaded before live.js:
 *  - display delay (?delay=S): live messages and gap refreshes are applied S seconds late, so the
 *    overlay matches the stream's latency;
 *  - (table following is follow.js's: pushed over the table's board socket);
 *  - the shot clock (Art. 49.4): a countdown started by the referee, shown on tablet and TV.
 */
(function () {
  "use strict";
  var opts = document.getElementById("display-opts");
  var delay = opts ? parseFloat(opts.getAttribute("data-delay") || "0") * 1000 : 0;

  if (delay > 0 && window.WebSocket) {
    var Native = window.WebSocket;
    var Delayed = function (url, protocols) {
      var ws = protocols ? new Native(url, protocols) : new Native(url);
      var handler = null;
      ws.addEventListener("message", function (e) {
        if (handler) setTimeout(function () { handler.call(ws, e); }, delay);
      });
      Object.defineProperty(ws, "onmessage", {
        get: function () { return handler; }, set: function (fn) { handler = fn; }, configurable: true});
      return ws;
    };
    Delayed.prototype = Native.prototype;
    ["CONNECTING", "OPEN", "CLOSING", "CLOSED"].forEach(function (k) { Delayed[k] = Native[k]; });
    window.WebSocket = Delayed;
    var nativeFetch = window.fetch;
    window.fetch = function () {
      var args = arguments;
      return new Promise(function (resolve, reject) {
        setTimeout(function () { nativeFetch.apply(window, args).then(resolve, reject); }, delay);
      });
    };
  }

  // a called match's W.O. tolerance clock (issue 17): counts down from the time the page carries
  var woClocks = document.querySelectorAll("[data-deadline]");
  if (woClocks.length) {
    var woTick = function () {
      Array.prototype.forEach.call(woClocks, function (el) {
        var left = Math.max(0, Math.round((Date.parse(el.getAttribute("data-deadline")) - Date.now()) / 1000));
        el.textContent = Math.floor(left / 60) + ":" + (left % 60 < 10 ? "0" : "") + (left % 60);
        el.classList.toggle("late", left === 0);
      });
    };
    woTick();
    setInterval(woTick, 1000);
  }

  var clock = document.getElementById("shot-clock");
  if (clock) {
    var cUrl = clock.getAttribute("data-clock-url");
    var timeEl = clock.querySelector(".sc-time");
    var state = null, offset = 0;
    var csrf = "";
    try { csrf = JSON.parse(document.body.getAttribute("hx-headers") || "{}")["X-CSRFToken"] || ""; } catch (e) {}
    var take = function (d) {
      state = d;
      if (d && d.now) offset = Date.parse(d.now) - Date.now();
      paint();
    };
    var poll = function () {
      fetch(cUrl, {cache: "no-store", credentials: "same-origin"})
        .then(function (r) { return r.ok ? r.json() : null; }).then(take).catch(function () {});
    };
    var paint = function () {
      if (!state) return;
      var left = state.seconds;
      if (state.running && state.deadline) {
        left = Math.max(0, (Date.parse(state.deadline) - (Date.now() + offset)) / 1000);
      }
      timeEl.textContent = Math.ceil(left);
      clock.classList.toggle("running", !!state.running);
      clock.classList.toggle("low", !!state.running && left <= 10 && left > 0);
      clock.classList.toggle("expired", !!state.running && left <= 0);
    };
    clock.addEventListener("click", function (e) {
      var b = e.target.closest("[data-clock]");
      if (!b) return;
      var body = new URLSearchParams({action: b.getAttribute("data-clock")});
      fetch(cUrl, {method: "POST", body: body, credentials: "same-origin", headers: {"X-CSRFToken": csrf}})
        .then(function (r) { return r.ok ? r.json() : null; }).then(take).catch(function () {});
    });
    poll();
    setInterval(poll, 1500);
    setInterval(paint, 200);
  }
})();
