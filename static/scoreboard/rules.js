/* The rules page: an anchor of no article or item (#art-0, #art-99): say so in both languages */
(function () {
  function check() {
    var h = decodeURIComponent(location.hash.slice(1));
    document.getElementById("bad-anchor").style.display = h && !document.getElementById(h) ? "block" : "none";
  }
  window.addEventListener("hashchange", check); check();
})();
