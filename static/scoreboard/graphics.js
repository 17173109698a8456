/* Stream graphics (/tables/<id>/graphics/): the stage is 1920x1080 and is scaled to the viewport
   as a whole; text marked data-fit shrinks until it fits its box; the ticker's pages, the
   sponsors and a card's pages (groups, bracket sections) rotate by the clock (so a pushed board,
   swapped whole by boards.js, keeps the same page); countdowns count to data-countdown. Options:
   ?rotate= seconds (default 8), ?per= tables per ticker page (1 or 2, default 1: long names stay
   large; two only while they fit). */
(function () {
  "use strict";
  var q = new URLSearchParams(location.search);
  var rotate = Math.min(Math.max(parseFloat(q.get("rotate")) || 8, 2), 120);
  var asked = Math.min(Math.max(parseInt(q.get("per"), 10) || 1, 1), 2);
  var per = asked;  /* one table a page when two do not fit (see cramped) */
  var root = document.getElementById("gfx-root");

  function scale() {
    var k = Math.min(window.innerWidth / 1920, window.innerHeight / 1080);
    root.style.setProperty("--k", k);
  }

  /* Shrink el until it fits its box, never below its --fit-min (px, default 4). A box with
     --fit-lines: 2 (a club, a player's name on a card) then takes a second line, as large as
     fits, rather than going below the size a viewer reads at 1080p; only text that does not fit
     two lines at the minimum ends in an ellipsis. */
  function fitOne(el) {
    el.classList.remove("fit-wrap");
    el.style.fontSize = "";
    var cs = getComputedStyle(el);
    var natural = parseFloat(cs.fontSize), size = natural, guard = 0;
    var min = Math.min(parseFloat(cs.getPropertyValue("--fit-min")) || 4, natural);
    var lines = parseInt(cs.getPropertyValue("--fit-lines"), 10) || 1;
    while (el.scrollWidth > el.clientWidth && size > min && guard++ < 60) {
      size = Math.max(size * Math.min(0.97, el.clientWidth / el.scrollWidth), min);
      el.style.fontSize = size + "px";
    }
    if (el.scrollWidth <= el.clientWidth || lines < 2) return;
    el.classList.add("fit-wrap");
    el.style.setProperty("-webkit-line-clamp", lines);
    size = natural;
    el.style.fontSize = size + "px";
    function tooBig() {
      return el.scrollWidth > el.clientWidth
        || el.scrollHeight > lines * parseFloat(getComputedStyle(el).lineHeight) + 1;
    }
    guard = 0;
    while (tooBig() && size > min && guard++ < 60) {
      size = Math.max(size * 0.96, min);
      el.style.fontSize = size + "px";
    }
  }

  function fit(scope) {
    var lists = (scope || document).querySelectorAll(".gfx-holding .results, .gfx-h2h .results");
    Array.prototype.forEach.call(lists, function (list) {
      Array.prototype.forEach.call(list.querySelectorAll(".res-off"), function (r) { r.classList.remove("res-off"); });
    });
    Array.prototype.forEach.call((scope || document).querySelectorAll("[data-fit]"), function (el) {
      if (!el.offsetParent && el.getClientRects().length === 0) return; // hidden: fitted when shown
      fitOne(el);
    });
    /* the two names of a ticker item, a result, a match-up or a bracket box at one size, and
       the names of a group's table: the smallest one's (a long name shrunk alone sat beside its
       opponent at full size) */
    Array.prototype.forEach.call((scope || document).querySelectorAll(".tk-item, .res, .vs, .br-m, .grp"), function (row) {
      var names = row.querySelectorAll(".tk-name, .res-n, .pl-name, .br-n, .grp-n");
      if (names.length < 2) return;
      var least = Infinity;
      Array.prototype.forEach.call(names, function (n) { least = Math.min(least, parseFloat(getComputedStyle(n).fontSize)); });
      Array.prototype.forEach.call(names, function (n) { n.style.fontSize = least + "px"; });
    });
    /* the two photos of a match-up at one size too: each gives up height for its own name and
       club (graphics.css), and a long name beside a short one left them uneven */
    Array.prototype.forEach.call((scope || document).querySelectorAll(".vs"), function (row) {
      var photos = row.querySelectorAll(".pl-photo");
      Array.prototype.forEach.call(photos, function (ph) { ph.style.height = ph.style.width = ph.style.flex = ""; });
      var least = Infinity;
      Array.prototype.forEach.call(photos, function (ph) { least = Math.min(least, ph.getBoundingClientRect().height); });
      if (photos.length < 2 || !isFinite(least)) return;
      var k = parseFloat(getComputedStyle(root).getPropertyValue("--k")) || 1;  /* the stage's scale */
      Array.prototype.forEach.call(photos, function (ph) { ph.style.flex = "none"; ph.style.height = ph.style.width = least / k + "px"; });
    });
    /* the results of the holding and head-to-head cards keep their height (a row squeezed to
       one line drew its wrapped name over the row above): the rows that do not fit whole under
       the newest are left out */
    Array.prototype.forEach.call(lists, function (list) {
      var bottom = list.getBoundingClientRect().bottom + 1, out = false;
      Array.prototype.forEach.call(list.querySelectorAll(".res"), function (r) {
        out = out || r.getBoundingClientRect().bottom > bottom;
        if (out) r.classList.add("res-off");
      });
    });
  }

  /* one page of each rotating group at a time, chosen by the clock */
  function pages() {
    var tick = Math.floor(Date.now() / 1000 / rotate);
    var ticker = document.querySelector("[data-rotate=ticker]");
    if (ticker) ticker.style.setProperty("--per", per);
    var changed = false;
    /* the ticker's pages, the sponsors, and the pages of a card too large for one (the groups
       of a stage, a section of the bracket) */
    var groups = [[ticker, per], [document.querySelector(".gfx-sponsors"), 1]];
    Array.prototype.forEach.call(document.querySelectorAll("[data-rotate=cards]"), function (el) { groups.push([el, 1]); });
    groups.forEach(function (g) {
      if (!g[0]) return;
      var items = g[0].querySelectorAll("[data-rotate-item]");
      var n = Math.max(1, Math.ceil(items.length / g[1]));
      var page = window.gfxPage != null ? window.gfxPage % n : tick % n;
      Array.prototype.forEach.call(items, function (el, i) {
        var show = Math.floor(i / g[1]) === page;
        if (el.hidden === show) { el.hidden = !show; changed = true; }
      });
    });
    return changed;
  }

  function countdowns() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-countdown]"), function (el) {
      var left = Math.max(0, Math.round((Date.parse(el.getAttribute("data-countdown")) - Date.now()) / 1000));
      var h = Math.floor(left / 3600), m = Math.floor(left % 3600 / 60), s = left % 60;
      var text = (h ? h + ":" + (m < 10 ? "0" : "") : "") + m + ":" + (s < 10 ? "0" : "") + s;
      if (el.textContent !== text) el.textContent = text;
    });
  }

  /* Whether the ticker's shown tables do not fit at a size read on air: a text cut or below
     26 px of the stage (two tables a page leave a long name too little room). */
  function cramped() {
    var items = document.querySelectorAll("[data-rotate=ticker] .tk-item:not([hidden])");
    return Array.prototype.some.call(items, function (item) {
      return Array.prototype.some.call(item.querySelectorAll("[data-fit], .tk-score"), function (el) {
        return el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1
          || parseFloat(getComputedStyle(el).fontSize) < 26;
      });
    });
  }

  function draw() {
    scale(); per = asked; pages(); countdowns(); fit();
    if (per > 1 && cramped()) { per = 1; pages(); fit(); }
  }

  /* for a test or a control page: show page n of the ticker, the sponsors and a card (null: back to the clock) */
  window.gfxShowPage = function (n) { window.gfxPage = n; draw(); };
  window.gfxRefit = draw;

  new MutationObserver(function () { draw(); }).observe(root, { childList: true });
  window.addEventListener("resize", draw);
  if (document.fonts && document.fonts.ready) document.fonts.ready.then(draw);
  root.addEventListener("load", function () { fit(); }, true);  /* a photo or flag arrived */
  setInterval(function () {
    if (pages()) { fit(); if (per > 1 && cramped()) draw(); }
    countdowns();
  }, 500);
  draw();
})();
