"""The JSON file a management command is given (``createcompetition``, ``federation register``
and ``register-clubs``): read as UTF-8 with or without a byte-order mark, at most a size, each
failure a ``CommandError`` in Portuguese and English."""
from __future__ import annotations

import json
import sys

from django.core.management.base import CommandError


def read(path: str, max_bytes: int):
    """The JSON value in the file ``path`` (``-``: standard input), of at most ``max_bytes``
    characters. ``CommandError`` for a file that cannot be read, is not UTF-8 (the byte named),
    is larger, or is not JSON (the line and column named; an empty file is one)."""
    try:
        if path == "-":
            text = sys.stdin.read(max_bytes + 1)
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read(max_bytes + 1)
    except UnicodeDecodeError as e:
        raise CommandError(f"{path} não está em UTF-8 (byte {e.start}): salve o arquivo como UTF-8 / "
                           f"{path} is not UTF-8 (byte {e.start}): save the file as UTF-8") from e
    except OSError as e:
        raise CommandError(f"Não foi possível ler {path}: {e.strerror or e} / Could not read {path}: {e.strerror or e}") from e
    # Windows editors (Notepad, Excel's "UTF-8") save a byte-order mark before the JSON
    text = text.removeprefix("\ufeff")
    if len(text) > max_bytes:
        raise CommandError(f"Arquivo grande demais (máximo {max_bytes} bytes) / File too large (at most {max_bytes} bytes)")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise CommandError(f"JSON inválido na linha {e.lineno}, coluna {e.colno} / "
                           f"Malformed JSON at line {e.lineno}, column {e.colno}: {e.msg}") from e
