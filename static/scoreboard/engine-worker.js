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

  function init(opts) {
    var t0 = Date.now();
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
    // Pyodide's module build (its classic build refuses classic workers).
    var loader = typeof loadPyodide !== "undefined" ? Promise.resolve(loadPyodide)
      : import(opts.pyodide + "pyodide.mjs").then(function (m) { return m.loadPyodide; });
    return Promise.race([failed, loader.then(function (load) {
      return load({indexURL: opts.pyodide, fullStdLib: false});
    })]).then(function (py) {
      var t1 = Date.now();
      return fetch(opts.engine_zip).then(function (r) {
        if (!r.ok) throw new Error("engine zip: HTTP " + r.status);
        return r.arrayBuffer();
      }).then(function (buf) {
        py.unpackArchive(buf, "zip", {extractDir: "/home/pyodide/engine"});
        py.globals.set("_config_json", JSON.stringify(opts.config));
        py.globals.set("_lang", opts.lang || "pt");
        py.globals.set("_urls_json", JSON.stringify(opts.urls || {}));
        py.runPython(
          "import sys, json\n" +
          "sys.path.insert(0, '/home/pyodide/engine')\n" +
          "from presentation.tablet import TabletEngine\n" +
          "_engine = TabletEngine(json.loads(_config_json), [], _lang, json.loads(_urls_json))\n");
        answer = py.globals.get("_engine").answer;
        var heap = py._module && py._module.HEAP8 ? py._module.HEAP8.length : null;  // wasm memory
        return {ok: true, pyodide_ms: t1 - t0, total_ms: Date.now() - t0, wasm_memory: heap,
                python: py.runPython("import sys; sys.version.split()[0]")};
      });
    });
  }

  function call(req) {
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
