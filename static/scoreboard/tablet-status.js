/* The referee tablet tells the desk how it is (core/tablets.py): taps queued, whether its
 * in-browser engine loaded, its battery where the browser tells (navigator.getBattery), sent
 * over its own socket (live.js: window.liveSend) every 10 s and whenever one of them changes;
 * the match's other tablets learn from it that this one holds taps unsent (referee.js). */
(function () {
  "use strict";
  var battery = null, last = "";
  var tablet = window.tabletId || "";  // this device's own id (referee.js)
  function report(force) {
    if (!window.liveSend || !window.tabletState) return;
    var s = window.tabletState();
    var msg = {type: "status", queued: s.queued, engine: s.engine, state: s.state, tablet: tablet,
               battery: battery ? battery.level : null, charging: battery ? battery.charging : null};
    var text = JSON.stringify(msg);
    if (!force && text === last) return;
    if (window.liveSend(msg)) last = text;
  }
  if (navigator.getBattery) {
    navigator.getBattery().then(function (b) {
      battery = b;
      b.addEventListener("levelchange", function () { report(false); });
      b.addEventListener("chargingchange", function () { report(false); });
      report(false);
    }).catch(function () {});
  }
  document.addEventListener("tablet:queue", function () { report(false); });  // held or let go: told at once
  document.addEventListener("live:status", function (e) { if (e.detail && e.detail.up) setTimeout(function () { report(true); }, 300); });
  setInterval(function () { report(false); }, 2000);
  setInterval(function () { report(true); }, 10000);
})();
