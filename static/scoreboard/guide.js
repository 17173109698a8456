/* /display/: each preview frame shows the real 1920×1080 page scaled to the frame's width. */
(function () {
  "use strict";
  function fit(frame) { frame.style.setProperty("--k", String(frame.clientWidth / 1920)); }
  var frames = document.querySelectorAll(".preview-frame");
  var ro = window.ResizeObserver ? new ResizeObserver(function (entries) {
    entries.forEach(function (e) { fit(e.target); });
  }) : null;
  frames.forEach(function (f) { fit(f); if (ro) ro.observe(f); });
})();
