"""Static files for deployment: WhiteNoise's hashed, compressed storage, reusing the compressed
copies that ship beside a file.

``scripts/compress_static.mjs`` already writes ``X.br`` (brotli, quality 11) and ``X.gz`` beside
the tablet's Pyodide files (``ensure_pyodide``). WhiteNoise compressed them all again on every
``collectstatic``: 35 s measured on this 2-core machine, almost all of it brotli on the 9.6 MB
wasm, paid by every deploy and by every test run that starts real workers. Brotli and gzip
give the same bytes for the same input, so for a file whose collected source has such copies
and whose bytes are the source's (the hashed copy of an unchanged file), the copies are reused;
every other file is compressed as WhiteNoise does.

A copy is reused only when it decompresses to the file's bytes: in a ``STATIC_ROOT`` collected
before, ``base.css.gz`` is WhiteNoise's compression of the *previous* ``base.css``, and after an
update the new file's hashed copy took it, so every browser (which asks for gzip or brotli) got
the old stylesheet while a plain ``curl`` got the new one. A stale copy is removed and the file
compressed again.
"""
from __future__ import annotations

import gzip
import os
import re
import shutil

from whitenoise.compress import Compressor
from whitenoise.storage import CompressedManifestStaticFilesStorage

_HASHED = re.compile(r"\.[0-9a-f]{12}(\.[^./]+)$")  # ManifestStaticFilesStorage's "name.<hash>.ext"


def _same_bytes(a: str, b: str) -> bool:
    if os.path.getsize(a) != os.path.getsize(b):
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def _holds(copy: str, original: str) -> bool:
    """Whether the compressed ``copy`` (``.gz`` or ``.br``) decompresses to ``original``'s bytes."""
    try:
        with open(copy, "rb") as f:
            packed = f.read()
        if copy.endswith(".gz"):
            data = gzip.decompress(packed)
        else:
            import brotli

            data = brotli.decompress(packed)
        with open(original, "rb") as f:
            return data == f.read()
    except Exception:  # noqa: BLE001 - not brotli installed, not a valid stream: not reusable
        return False


class ReusingCompressor(Compressor):
    """WhiteNoise's compressor that copies ``.br``/``.gz`` siblings made before collectstatic,
    when they hold the file's bytes (module docstring)."""

    def compress(self, path: str) -> list[str]:
        """The compressed files written for ``path`` (absolute), as ``Compressor.compress``."""
        source = _HASHED.sub(r"\1", path)
        suffixes = [s for s in (".br", ".gz") if os.path.exists(source + s)]
        if not suffixes or not (source == path or _same_bytes(source, path)) \
                or not all(_holds(source + s, source) for s in suffixes):
            for stale in (path + ".br", path + ".gz"):  # WhiteNoise may decide not to write one
                if os.path.exists(stale):
                    os.remove(stale)
            return super().compress(path)
        written = []
        for suffix in suffixes:
            if source != path:
                try:  # WhiteNoise compresses in threads: the source's copy may be rewritten meanwhile
                    shutil.copyfile(source + suffix, path + suffix)
                except OSError:
                    return super().compress(path)
                if not _holds(path + suffix, path):
                    return super().compress(path)
            written.append(path + suffix)
        return written


class PrecompressedManifestStorage(CompressedManifestStaticFilesStorage):
    """``CompressedManifestStaticFilesStorage`` with :class:`ReusingCompressor`."""

    def create_compressor(self, **kwargs) -> Compressor:
        return ReusingCompressor(**kwargs)
