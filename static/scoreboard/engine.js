/* The bridge to the tablet's in-browser engine (engine-worker.js: Pyodide + the sinuca/ package).
 *
 * window.sinucaEngine.ready resolves once the engine has loaded and replayed the match's log; then
 * call({op: ...}) answers from presentation.tablet.TabletEngine (the view with its legal buttons, the
 * foul form and preview, apply). The log the engine replays is the server's: the events API, paged,
 * kept in localStorage so that a reload offline still has it. A service worker keeps Pyodide and
 * the engine zip for offline use. While the engine cannot load, ready waits, the small fixed-size
 * status says so, the tablet works as without it (the server decides everything), and the load
 * is tried again in the background until it succeeds.
 */
(function () {
  "use strict";
  var holder = document.getElementById("tablet-engine");
  if (!holder) return;
  var S;
  try { S = JSON.parse(holder.textContent); } catch (e) { return; }
  var EN = S.lang === "en";
  var statusEl = document.getElementById("engine-status");
  var STORE = "sinuca.engineLog." + S.match;

  function t(pt, en) { return EN ? en : pt; }
  function setStatus(kind, text) {
    if (!statusEl) return;
    statusEl.setAttribute("data-state", kind);
    statusEl.textContent = text;
  }

  /* ---------- the server's log, kept on the tablet ---------- */
  function loadLog() {
    try {
      var d = JSON.parse(localStorage.getItem(STORE) || "null");
      if (d && Array.isArray(d.events) && JSON.stringify(d.config) === JSON.stringify(S.config)) return d.events;
    } catch (e) { /* unreadable: fetch it again */ }
    return [];
  }
  var serverEvents = loadLog();
  function saveLog() {
    try { localStorage.setItem(STORE, JSON.stringify({config: S.config, events: serverEvents})); } catch (e) { /* full */ }
  }
  /* Fetch the log after what the tablet has, page by page (the API's ?after=&limit=, next). */
  function syncLog() {
    var url = S.events + "?after=" + serverEvents.length + "&limit=1000";
    function page(u) {
      return fetch(u, {credentials: "same-origin", cache: "no-store"}).then(function (r) {
        if (!r.ok) throw new Error("events: HTTP " + r.status);
        return r.json();
      }).then(function (d) {
        d.events.forEach(function (e) {
          if (e.seq === serverEvents.length + 1) serverEvents.push(e.event);
        });
        if (d.next && d.events.length) return page(d.next);
      });
    }
    return page(url).then(function () { saveLog(); return serverEvents.length; });
  }

  /* ---------- the engine: in a worker, or on the page's thread ---------- */
  var mode = (function () {
    try { return localStorage.getItem("sinuca.engineMode") === "main" ? "main" : "worker"; } catch (e) { return "worker"; }
  })();
  var worker = null, core = null, nextId = 1, waiting = {};
  function send(msg) {
    return new Promise(function (resolve, reject) {
      var id = nextId++;
      waiting[id] = {resolve: resolve, reject: reject};
      msg.id = id;
      worker.postMessage(msg);
    });
  }
  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var s = document.createElement("script");
      s.src = src; s.onload = resolve; s.onerror = function () { reject(new Error("script " + src)); };
      document.head.appendChild(s);
    });
  }
  function abs(u) { return new URL(u, location.href).href; }
  var opts = {pyodide: abs(S.pyodide), engine_zip: abs(S.engine_zip), config: S.config, lang: S.lang, urls: S.urls,
              stdlib: S.stdlib && !flag("sinuca.engineStdlib", "full") ? abs(S.stdlib) : null,
              snapshot_key: flag("sinuca.engineSnapshot", "off") ? null : S.snapshot_key,
              lock_info: S.lock_info || null};
  // localStorage sinuca.engineSnapshot = "off", sinuca.engineStdlib = "full": load without the
  // memory snapshot, with Pyodide's whole stdlib (as before issue 20, for the benchmark)
  function flag(name, value) {
    try { return localStorage.getItem(name) === value; } catch (e) { return false; }
  }
  function initMain() {
    api.mode = "main";
    window.onSnapshotStored = function (ok) { api.snapshotStored = ok; };
    return loadScript(S.worker).then(function () { core = window.SinucaEngineCore; return core.init(opts); });
  }
  function init() {
    if (mode === "main") return initMain();
    // The worker starts from the script's text, fetched by the page (through the service worker,
    // so offline too); if a worker cannot run here, the engine runs on the page's thread.
    return fetch(S.worker).then(function (r) {
      if (!r.ok) throw new Error("worker script: HTTP " + r.status);
      return r.text();
    }).then(function (text) {
      try {
        return {started: startWorker(URL.createObjectURL(new Blob([text], {type: "text/javascript"})))};
      } catch (err) {
        return {error: err};  // no module workers here
      }
    }, function (err) { return {error: err}; }).then(function (r) {
      if (!r.error) return r.started;  // a failure inside the worker (e.g. no wasm) is final
      api.workerError = String(r.error && r.error.message || r.error);
      return initMain();
    });
  }
  function startWorker(url) {
    worker = new Worker(url, {type: "module"});
    worker.onmessage = function (e) {
      if (e.data.event === "snapshot_stored") { api.snapshotStored = e.data.ok; return; }
      var w = waiting[e.data.id];
      if (!w) return;
      delete waiting[e.data.id];
      if (e.data.error) w.reject(new Error(e.data.error)); else w.resolve(e.data.result);
    };
    worker.onerror = function (e) {
      Object.keys(waiting).forEach(function (k) { waiting[k].reject(new Error(e.message || "worker error")); delete waiting[k]; });
    };
    return send({op: "init", opts: opts, shared: shared});
  }
  /* A worker's answer is a message, and Chrome holds messages back until the frame after a tap
     is drawn (measured: ~15 ms a tap, against ~1 ms on the page's thread). With cross-origin
     isolation (the referee page sends COOP/COEP) the worker also writes its answer into shared
     memory, and the page waits for it there, within the tap's handler: the result is in the DOM
     before the next frame. Without it, or past SPIN_MS (the worker busy replaying a long log), the
     message brings the answer. */
  var SPIN_MS = 30, SHARED = 1 << 20;
  var shared = null, flag = null, bytes = null;
  if (typeof SharedArrayBuffer !== "undefined" && window.crossOriginIsolated) {
    try {
      shared = new SharedArrayBuffer(16 + SHARED);
      flag = new Int32Array(shared, 0, 3);  // [answered, length, request id]
      bytes = new Uint8Array(shared, 16);
    } catch (e) { shared = null; }
  }
  function call(req) {
    if (core) return Promise.resolve(core.call(req));
    if (!shared) return send({op: "call", req: req});
    var id = nextId;
    var p = send({op: "call", req: req, shared: true});
    var until = performance.now() + SPIN_MS;
    // The worker answers in order, so once this id is written no earlier answer can follow it.
    function mine() { return Atomics.load(flag, 0) !== 0 && Atomics.load(flag, 2) === id; }
    while (!mine() && performance.now() < until) { /* the worker answers in ~1 ms */ }
    if (mine() && Atomics.load(flag, 0) === 1 && waiting[id]) {
      var n = flag[1], copy = new Uint8Array(n);
      copy.set(bytes.subarray(0, n));
      delete waiting[id];  // its message, when it comes, is ignored
      api.sharedAnswers += 1;
      return Promise.resolve(JSON.parse(new TextDecoder().decode(copy)));
    }
    api.slowAnswers += 1;  // the message brings it
    return p;
  }

  var api = {
    settings: S, mode: mode, loaded: false, failed: null, timings: {}, sharedAnswers: 0, slowAnswers: 0,
    serverEvents: function () { return serverEvents; },
    syncLog: syncLog,
    /* The server's log grew by a tap this tablet made (its answer said which seq). */
    confirmed: function (event, seq) {
      if (serverEvents.length === seq - 1) { serverEvents.push(event); saveLog(); }
    },
    call: function (req) {
      if (req && req.op === "reset" && api.timings.replay_ms === undefined) {
        // the first replay of the log (referee.js, on engine:ready): the last stage of a load
        var t = performance.now();
        api.timings.replay_ms = null;
        return call(req).then(function (r) {
          api.timings.replay_ms = Math.round((performance.now() - t) * 10) / 10;
          api.timings.replayed = r && r.count;
          api.timings.ready_replayed_ms = Math.round(performance.now() - start);
          return r;
        });
      }
      return call(req);
    }
  };
  window.sinucaEngine = api;

  if ("serviceWorker" in navigator && S.service_worker) {
    navigator.serviceWorker.register(S.service_worker).then(function () {
      return navigator.serviceWorker.ready;
    }).then(function (reg) {
      api.serviceWorker = true;
      // keep this page for a reload without network: only its first load, which came before the
      // worker (a controlled load was kept by the worker itself; a second fetch here could land
      // after a later load's answer and bring back a copy a logged-out reload had dropped)
      if (reg.active && !navigator.serviceWorker.controller) {
        reg.active.postMessage({type: "keep", url: location.pathname});
      }
    }).catch(function () { /* offline reloads need it; taps do not */ });
  }

  /* Loading retries in the background until it succeeds: a failure (a file that did not come,
     a worker that died) tries again after 2, 4, 8 … 30 s, and a slow link is never given up on
     (it used to stop after 60 s, for good). Meanwhile the server decides every tap. */
  var start = performance.now(), attempt = 0, retryDelay = 2000, RETRY_MAX = 30000, SLOW_MS = 60000;
  var readyResolve;
  api.ready = new Promise(function (resolve) { readyResolve = resolve; });
  api.attempts = 0;
  function loaded(info) {
    api.timings.load_ms = Math.round(performance.now() - start);
    api.timings.pyodide_ms = info.pyodide_ms;
    api.timings.worker_ms = info.total_ms;
    // the worker's stages on the page's clock (its clock starts when it does)
    var shift = (info.time_origin || performance.timeOrigin) - performance.timeOrigin;
    api.stages = {page_start: Math.round(start), worker_shift: Math.round(shift), worker: info.stages, files: info.files};
    api.snapshot = !!info.snapshot;
    api.snapshotError = info.snapshot_error || null;
    api.snapshotBytes = info.snapshot_bytes;
    api.python = info.python;
    api.wasmMemory = info.wasm_memory;
    // The log up to now (offline: what the tablet kept).
    var synced = performance.now();
    return syncLog().catch(function () { return serverEvents.length; }).then(function () {
      api.timings.sync_ms = Math.round(performance.now() - synced);
      api.loaded = true;
      api.failed = null;
      setStatus("ready", t("Regras no tablet: prontas", "Rules on the tablet: ready"));
      document.dispatchEvent(new CustomEvent("engine:ready"));
      readyResolve(api);
    });
  }
  function attemptLoad() {
    attempt += 1;
    api.attempts = attempt;
    setStatus("loading", attempt === 1 ? t("Regras no tablet: carregando…", "Rules on the tablet: loading…")
      : t("Regras no tablet: carregando… (tentativa " + attempt + ")", "Rules on the tablet: loading… (try " + attempt + ")"));
    var slow = setTimeout(function () {
      if (!api.loaded) setStatus("loading", t("Regras no tablet: ainda carregando (rede lenta)…",
                                              "Rules on the tablet: still loading (slow network)…"));
    }, SLOW_MS);
    init().then(function (info) { clearTimeout(slow); return loaded(info); }, function (err) {
      clearTimeout(slow);
      api.failed = String(err && err.message || err);
      if (worker) { worker.terminate(); worker = null; }
      Object.keys(waiting).forEach(function (k) { delete waiting[k]; });
      core = null;
      var wait = retryDelay;
      retryDelay = Math.min(retryDelay * 2, RETRY_MAX);
      setStatus("failed", t("Regras só no servidor por enquanto: nova tentativa em " + Math.round(wait / 1000) + " s",
                            "Rules on the server for now: trying again in " + Math.round(wait / 1000) + " s"));
      document.dispatchEvent(new CustomEvent("engine:failed", {detail: {error: api.failed}}));
      setTimeout(attemptLoad, wait);
    });
  }
  attemptLoad();
})();
