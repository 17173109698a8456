/* Write X.gz and X.br beside each file named on the command line, for WhiteNoise to serve with
 * Content-Encoding (it picks them up under DEBUG too). Run by ensure_pyodide (scripts/lib.sh) for
 * Pyodide's files: the trimmed 8.7 MB wasm is 2.9 MB gzipped and 2.34 MB brotli'd, most of the
 * tablet's cold download. Only a file that shrinks by a tenth gets a sibling.
 *
 * Brotli from Node's zlib, not Python's brotli package: the same library and the same bytes, but
 * quality 11 on the wasm takes 29-36 s here against 41 s, and the files are compressed at once
 * on libuv's threads (the set-up's longest step, paid by every fresh checkout's test run). Gzip
 * from GNU gzip -9 -n: Node's own deflate (Chromium's zlib) made the wasm 2% larger, and a
 * tablet on a venue's plain-http LAN is sent gzip, not brotli. A file that gzip does not shrink
 * by a tenth (python_stdlib.zip: already deflated) is not brotli'd.
 *
 * node scripts/compress_static.mjs <file> ...
 */
import { spawn } from "node:child_process";
import fs from "node:fs/promises";
import { promisify } from "node:util";
import zlib from "node:zlib";

function gzip(data) {
  return new Promise((resolve, reject) => {
    const child = spawn("gzip", ["-9", "-n", "-c"], { stdio: ["pipe", "pipe", "inherit"] });
    const chunks = [];
    child.stdout.on("data", (c) => chunks.push(c));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`gzip exited ${code}`))));
    child.stdin.end(data);
  });
}
const brotli = promisify(zlib.brotliCompress);
const { BROTLI_PARAM_QUALITY, BROTLI_PARAM_LGWIN, BROTLI_PARAM_SIZE_HINT } = zlib.constants;

async function sibling(path, ext, data, packed) {
  const out = path + ext;
  if (packed.length < 0.9 * data.length) await fs.writeFile(out, packed);
  else await fs.rm(out, { force: true });
  console.log(`${out}: ${data.length} -> ${packed.length} bytes`);
  return packed.length < 0.9 * data.length;
}

async function compress(path) {
  const data = await fs.readFile(path);
  const shrinks = await sibling(path, ".gz", data, await gzip(data));
  if (!shrinks) {
    await fs.rm(path + ".br", { force: true });
    return;
  }
  // quality 11; a file over the default 4 MB window gets the largest standard one (16 MB, which
  // every browser decodes): 44 kB less of the trimmed wasm
  const params = {
    [BROTLI_PARAM_QUALITY]: 11,
    [BROTLI_PARAM_LGWIN]: data.length > 1 << 22 ? 24 : 22,
    [BROTLI_PARAM_SIZE_HINT]: data.length,
  };
  await sibling(path, ".br", data, await brotli(data, { params }));
}

await Promise.all(process.argv.slice(2).map(compress));
