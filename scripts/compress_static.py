"""Write ``.gz`` and (with the ``brotli`` package) ``.br`` beside each file named on the command
line, for WhiteNoise to serve with Content-Encoding (it picks them up under DEBUG too). Run by
``ensure_pyodide`` for Pyodide's files: its 9.6 MB wasm is 3.5 MB gzipped and 2.7 MB brotli'd,
most of the tablet's cold download (issue 20). Only files that shrink by a tenth get a sibling."""
from __future__ import annotations

import gzip
import pathlib
import sys

try:
    import brotli
except ImportError:  # gzip only
    brotli = None


def main(paths: list[str]) -> None:
    for name in paths:
        path = pathlib.Path(name)
        data = path.read_bytes()
        variants = [(".gz", lambda d: gzip.compress(d, 9, mtime=0))]
        if brotli is not None:
            # quality 11; a file over the default 4 MB window gets the largest standard one (16 MB,
            # which every browser decodes): 44 kB less of Pyodide's trimmed wasm
            variants.append((".br", lambda d: brotli.compress(d, quality=11, lgwin=24 if len(d) > 1 << 22 else 22)))
        for ext, fn in variants:
            out = path.with_name(path.name + ext)
            packed = fn(data)
            if len(packed) < 0.9 * len(data):
                out.write_bytes(packed)
            elif out.exists():
                out.unlink()
            print(f"{out.name}: {len(data)} -> {len(packed)} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
