/* The tablet's rules engine: Pyodide running the very sinuca/ and presentation/ packages the server
 * runs (served as a zip built from the packages on disk). No rule is written here: every answer comes from
 * presentation.tablet.TabletEngine, JSON in and JSON out.
 *
 * Loaded as a module Web Worker by engine.js (Pyodide's start-up, ~1-3 s of compiling and importing, then
 * stays off the page's thread); the same file, loaded with a <script> tag, defines
 * self.SinucaEngineCore for running on the page's thread (for measuring the difference).
 */
(function () {
  "use strict";
  var answer = null;

  /* Where the start-up's time goes, in ms since init began (this worker's clock), reported in the
     init result as `stages`; the page adds its own (engine.js). */
  function now() { return Math.round(performance.now() * 10) / 10; }

  /* A memory snapshot of the interpreter right after it imported sinuca/ and presentation/ (no
     match in it: the engine is built after), kept in Cache Storage under a key made of the Pyodide
     build and the engine zip's digest, so a new engine or a new Pyodide never boots an old one
     (Pyodide also refuses a snapshot of another build). A warm load restores it instead of starting
     the interpreter and importing: that was 3-4 s of every reload. */
  var SNAP_CACHE = "sinuca-engine-snapshot";
  function snapUrl(key) { return new URL("/tablet/engine/snapshot/" + encodeURIComponent(key), self.location.origin).href; }
  function readSnapshot(key) {
    if (!key || typeof caches === "undefined") return Promise.resolve(null);
    return caches.open(SNAP_CACHE).then(function (c) { return c.match(snapUrl(key)); })
      .then(function (r) { return r ? r.arrayBuffer() : null; })
      .catch(function () { return null; });
  }
  function storeSnapshot(key, bytes) {
    if (!key || typeof caches === "undefined") return Promise.resolve(false);
    return caches.open(SNAP_CACHE).then(function (c) {
      return c.keys().then(function (old) {  // one snapshot kept: the current engine's
        return Promise.all(old.map(function (r) { return r.url === snapUrl(key) ? null : c.delete(r); }));
      }).then(function () {
        return c.put(snapUrl(key), new Response(bytes, {headers: {"Content-Type": "application/octet-stream"}}));
      });
    }).then(function () { return true; }, function () { return false; });
  }
  function dropSnapshot(key) {
    if (typeof caches === "undefined") return Promise.resolve();
    return caches.open(SNAP_CACHE).then(function (c) { return c.delete(snapUrl(key)); }).catch(function () {});
  }

  /* Pyodide's snapshot format: a header (magic, its length, ...) then the wasm memory (whole 64 KiB
     pages). One that is not such a thing is refused here: Pyodide would size the memory from it
     and its wasm instantiation would fail without ever settling. */
  var SNAP_MAGIC = 1886286592;
  function snapshotLooksRight(buf) {
    if (!buf || buf.byteLength < 64 + 65536 || buf.byteLength % 4) return false;
    var h = new Uint32Array(buf, 0, 4);
    return h[0] === SNAP_MAGIC && h[1] >= 48 && h[1] < buf.byteLength && (buf.byteLength - h[1]) % 65536 === 0;
  }

  var ENGINE_ZIP = "/home/pyodide/engine.zip";  // imported from the zip itself (zipimport)
  var IMPORTS = "import sys\n" +
    "if '" + ENGINE_ZIP + "' not in sys.path: sys.path.insert(0, '" + ENGINE_ZIP + "')\n" +
    "import json\n" +
    "import presentation.tablet\n";

  var pendingStore = null, storeTimer = null, STORE_IDLE_MS = 1500;
  function scheduleStore() {
    if (!pendingStore) return;
    clearTimeout(storeTimer);
    storeTimer = setTimeout(function () {
      var p = pendingStore;
      pendingStore = null;
      storeSnapshot(p.key, p.bytes).then(function (ok) {
        if (typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope) self.postMessage({event: "snapshot_stored", ok: ok});
        else if (self.onSnapshotStored) self.onSnapshotStored(ok);
      });
    }, STORE_IDLE_MS);
  }

  function init(opts) {
    var st = {start: now()}, t0 = Date.now();
    // Pyodide waits forever when one of its own files cannot be fetched (its wasm blocked, say):
    // such a failure ends the load at once, so the tablet says so instead of "loading".
    var giveUp, failed = new Promise(function (_, reject) { giveUp = reject; });
    var realFetch = self.fetch.bind(self);
    self.fetch = function (input, init2) {
      var url = String(input && input.url || input);
      return realFetch(input, init2).then(function (r) {
        if (!r.ok && url.indexOf(opts.pyodide) === 0) giveUp(new Error(url + ": HTTP " + r.status));
        return r;
      }, function (err) {
        if (url.indexOf(opts.pyodide) === 0) giveUp(new Error(url + ": " + err));
        throw err;
      });
    };
    // The wasm's compile (streaming: it overlaps the download; from a cached Response Chromium
    // may reuse compiled code).
    if (WebAssembly.instantiateStreaming && !WebAssembly.__timed) {
      var realIS = WebAssembly.instantiateStreaming;
      WebAssembly.instantiateStreaming = function () {
        st.compile_start = now();
        return realIS.apply(WebAssembly, arguments).then(function (r) { st.compile_end = now(); return r; });
      };
      WebAssembly.__timed = true;
    }
    var key = opts.snapshot_key || null;
    // Pyodide's module build (its classic build refuses classic workers).
    var loader = typeof loadPyodide !== "undefined" ? Promise.resolve(loadPyodide)
      : import(opts.pyodide + "pyodide.mjs").then(function (m) { return m.loadPyodide; });
    var zip = fetch(opts.engine_zip).then(function (r) {
      if (!r.ok) throw new Error("engine zip: HTTP " + r.status);
      return r.arrayBuffer();
    });
    var snap = opts.snapshot === false ? Promise.resolve(null) : readSnapshot(key);
    var snapshotError = null, made = null;

    var fullStdlib = false;
    function boot(load, bytes) {
      st.boot_start = now();
      var cfg = {indexURL: opts.pyodide};
      // Pyodide's lock file without its packages (the engine loads none): not downloaded
      if (opts.lock_info) cfg.lockFileContents = JSON.stringify({info: opts.lock_info, packages: {}});
      // the engine's own stdlib (compiled, only what it imports); the whole one if that failed
      if (opts.stdlib && !fullStdlib) cfg.stdLibURL = opts.stdlib;
      if (bytes) cfg._loadSnapshot = new Uint8Array(bytes); else if (key && !fullStdlib) cfg._makeSnapshot = true;
      return Promise.race([failed, load(cfg)]).then(function (py) {
        st.interpreter = now();
        return zip.then(function (buf) {
          st.zip = now();
          py.FS.writeFile(ENGINE_ZIP, new Uint8Array(buf));  // the same bytes the snapshot imported
          try {
            py.runPython(IMPORTS);
          } catch (e) {
            // a module missing from the engine's stdlib (the build is stale): the whole stdlib
            if (fullStdlib || !opts.stdlib || !/ModuleNotFoundError/.test(String(e))) throw e;
            fullStdlib = true;
            snapshotError = "stdlib: " + String(e).split("\n").filter(Boolean).pop();
            return boot(load, null);
          }
          st.imported = now();
          if (!bytes && key && !fullStdlib) {
            try {
              made = py.makeMemorySnapshot();
            } catch (e) { snapshotError = String(e && e.message || e); }
            st.snapshot_made = now();
          }
          return py;
        });
      });
    }

    return Promise.all([loader, snap]).then(function (r) {
      var load = r[0], bytes = r[1];
      st.loader = now();
      if (bytes && !snapshotLooksRight(bytes)) {
        snapshotError = "snapshot refused: not a Pyodide memory snapshot";
        dropSnapshot(key);
        bytes = null;
      }
      if (bytes) st.snapshot_read = now();
      return (bytes ? boot(load, bytes).catch(function (e) {
        // a snapshot that does not boot is dropped, and the interpreter starts as usual
        snapshotError = String(e && e.message || e);
        dropSnapshot(key);
        bytes = null;
        return boot(load, null);
      }) : boot(load, null)).then(function (py) { return {py: py, fromSnapshot: !!bytes}; });
    }).then(function (b) {
      var py = b.py, t1 = Date.now();
      py.globals.set("_config_json", JSON.stringify(opts.config));
      py.globals.set("_lang", opts.lang || "pt");
      py.globals.set("_urls_json", JSON.stringify(opts.urls || {}));
      py.runPython("from presentation.tablet import TabletEngine\n" +
        "_engine = TabletEngine(json.loads(_config_json), [], _lang, json.loads(_urls_json))\n");
      answer = py.globals.get("_engine").answer;
      st.engine = now();
      var heap = py._module && py._module.HEAP8 ? py._module.HEAP8.length : null;  // wasm memory
      var files = {};
      (performance.getEntriesByType ? performance.getEntriesByType("resource") : []).forEach(function (e) {
        var name = e.name.split("?")[0].split("/").pop();
        files[name] = {transfer: e.transferSize, encoded: e.encodedBodySize, decoded: e.decodedBodySize,
                       start: Math.round(e.startTime), end: Math.round(e.responseEnd)};
      });
      var info = {ok: true, pyodide_ms: t1 - t0, total_ms: Date.now() - t0, wasm_memory: heap,
                  python: py.runPython("import sys; sys.version.split()[0]"),
                  snapshot: b.fromSnapshot, full_stdlib: fullStdlib, snapshot_error: snapshotError, snapshot_bytes: made ? made.length : null,
                  stages: st, files: files, time_origin: performance.timeOrigin};
      if (made) {
        // stored once the engine has been idle a moment: writing 30 MB to Cache Storage must not
        // hold back the first taps' answers
        pendingStore = {key: key, bytes: made};
        made = null;
        scheduleStore();
      }
      return info;
    });
  }

  function call(req) {
    if (pendingStore) scheduleStore();  // not idle yet
    if (!answer) return {ok: false, error: {code: "not_loaded", message: "motor não carregado / engine not loaded"}};
    return JSON.parse(answer(JSON.stringify(req)));
  }

  var core = {init: init, call: call};
  if (typeof WorkerGlobalScope !== "undefined" && self instanceof WorkerGlobalScope) {
    var flag = null, bytes = null, encoder = new TextEncoder();
    self.onmessage = function (e) {
      var msg = e.data, id = msg.id;
      if (msg.op === "init") {
        if (msg.shared) { flag = new Int32Array(msg.shared, 0, 3); bytes = new Uint8Array(msg.shared, 16); }
        Promise.resolve().then(function () { return init(msg.opts); }).then(function (r) {
          self.postMessage({id: id, result: r});
        }, function (err) {
          self.postMessage({id: id, error: String(err && err.message || err)});
        });
        return;
      }
      var result;
      try { result = call(msg.req); } catch (err) { result = {ok: false, error: {code: "engine_crash", message: String(err)}}; }
      if (msg.shared && flag) {
        // the page may be waiting in its tap handler: the answer in shared memory first
        var data = encoder.encode(JSON.stringify(result));
        Atomics.store(flag, 0, 0);
        if (data.length <= bytes.length) {
          bytes.set(data);
          flag[1] = data.length;
          Atomics.store(flag, 2, id);
          Atomics.store(flag, 0, 1);
        } else {
          Atomics.store(flag, 2, id);
          Atomics.store(flag, 0, 2);  // too big: the message below carries it
        }
      }
      self.postMessage({id: id, result: result});
    };
  } else {
    self.SinucaEngineCore = core;
  }
})();
