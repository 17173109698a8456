"""collectstatic reuses the .br/.gz copies made beside a file (Pyodide's, by
scripts/compress_static.mjs) instead of compressing it again: brotli on the 9.6 MB wasm took
35 s of every deploy and of every test run that starts real workers (1.9 s now)."""
from __future__ import annotations

import gzip
import os

from scoreboard.http.static import ReusingCompressor


def test_a_hashed_copy_of_an_unchanged_file_takes_the_copies_made_beside_its_source(tmp_path):
    data = b"(module) " * 4000
    (tmp_path / "engine.wasm").write_bytes(data)
    (tmp_path / "engine.wasm.br").write_bytes(b"made before collectstatic (br)")
    (tmp_path / "engine.wasm.gz").write_bytes(b"made before collectstatic (gz)")
    (tmp_path / "engine.0123456789ab.wasm").write_bytes(data)
    written = ReusingCompressor(quiet=True).compress(str(tmp_path / "engine.0123456789ab.wasm"))
    assert sorted(os.path.basename(p) for p in written) == ["engine.0123456789ab.wasm.br", "engine.0123456789ab.wasm.gz"]
    assert (tmp_path / "engine.0123456789ab.wasm.br").read_bytes() == b"made before collectstatic (br)"
    assert (tmp_path / "engine.0123456789ab.wasm.gz").read_bytes() == b"made before collectstatic (gz)"
    # the unhashed source keeps its own copies, untouched
    assert ReusingCompressor(quiet=True).compress(str(tmp_path / "engine.wasm")) == \
        [str(tmp_path / "engine.wasm.br"), str(tmp_path / "engine.wasm.gz")]
    assert (tmp_path / "engine.wasm.br").read_bytes() == b"made before collectstatic (br)"


def test_a_file_whose_bytes_differ_from_its_source_or_without_copies_is_compressed_as_before(tmp_path):
    css = b"body { background: url(a.png); } " * 300
    (tmp_path / "site.css").write_bytes(css)
    (tmp_path / "site.css.gz").write_bytes(b"stale")
    rewritten = css.replace(b"a.png", b"a.0123456789ab.png")  # the manifest rewrote its urls
    (tmp_path / "site.0123456789ab.css").write_bytes(rewritten)
    ReusingCompressor(quiet=True, use_brotli=False).compress(str(tmp_path / "site.0123456789ab.css"))
    assert gzip.decompress((tmp_path / "site.0123456789ab.css.gz").read_bytes()) == rewritten
    (tmp_path / "plain.js").write_bytes(b"var x = 1;\n" * 500)
    ReusingCompressor(quiet=True, use_brotli=False).compress(str(tmp_path / "plain.js"))
    assert gzip.decompress((tmp_path / "plain.js.gz").read_bytes()) == b"var x = 1;\n" * 500
