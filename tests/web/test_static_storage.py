"""collectstatic reuses the .br/.gz copies made beside a file (Pyodide's, by
scripts/compress_static.mjs) instead of compressing it again: brotli on the 9.6 MB wasm took
35 s of every deploy and of every test run that starts real workers (1.9 s now)."""
from __future__ import annotations

import gzip
import os

from scoreboard.http.static import ReusingCompressor


def test_a_hashed_copy_of_an_unchanged_file_takes_the_copies_made_beside_its_source(tmp_path):
    import brotli

    data = b"(module) " * 4000
    br, gz = brotli.compress(data, quality=1), gzip.compress(data, compresslevel=1, mtime=0)
    (tmp_path / "engine.wasm").write_bytes(data)
    (tmp_path / "engine.wasm.br").write_bytes(br)  # made before collectstatic (not WhiteNoise's levels)
    (tmp_path / "engine.wasm.gz").write_bytes(gz)
    (tmp_path / "engine.0123456789ab.wasm").write_bytes(data)
    written = ReusingCompressor(quiet=True).compress(str(tmp_path / "engine.0123456789ab.wasm"))
    assert sorted(os.path.basename(p) for p in written) == ["engine.0123456789ab.wasm.br", "engine.0123456789ab.wasm.gz"]
    assert (tmp_path / "engine.0123456789ab.wasm.br").read_bytes() == br
    assert (tmp_path / "engine.0123456789ab.wasm.gz").read_bytes() == gz
    # the unhashed source keeps its own copies, untouched
    assert ReusingCompressor(quiet=True).compress(str(tmp_path / "engine.wasm")) == \
        [str(tmp_path / "engine.wasm.br"), str(tmp_path / "engine.wasm.gz")]
    assert (tmp_path / "engine.wasm.br").read_bytes() == br


def test_copies_left_by_an_earlier_collect_of_an_older_file_are_made_again(tmp_path):
    """Found by a tryout: after an update, ``collectstatic`` into a ``STATIC_ROOT`` collected
    before gave the new ``base.<hash>.css`` the old ``base.css.gz``: browsers (gzip, brotli) got
    the old stylesheet, ``curl`` the new one."""
    import brotli

    old, new = b"body { color: red; } " * 300, b"body { color: green; } " * 300
    (tmp_path / "base.css").write_bytes(new)  # collectstatic copied the new source over
    (tmp_path / "base.css.gz").write_bytes(gzip.compress(old))  # the earlier collect's
    (tmp_path / "base.css.br").write_bytes(brotli.compress(old))
    (tmp_path / "base.0123456789ab.css").write_bytes(new)
    for name in ("base.0123456789ab.css", "base.css"):
        ReusingCompressor(quiet=True).compress(str(tmp_path / name))
        assert gzip.decompress((tmp_path / f"{name}.gz").read_bytes()) == new, name
        assert brotli.decompress((tmp_path / f"{name}.br").read_bytes()) == new, name


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
