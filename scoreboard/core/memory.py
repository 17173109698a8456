"""This process's memories, and the one way to forget them all.

A worker keeps things between requests that the database could give it again: the log's engines
(``log``), the rendered pages (``live.render``), the statistics' folds (``reports.stats``), the
credentials seen accepted per match (``limits.WRITERS``), the competitions' parsed plans and
results (``competitions``), the hub bound to its event loop (``live.hub``). Each module that
keeps one registers how to forget it here (:func:`remembered`), next to the memory itself;
:func:`forget` forgets every one. Production never needs it (a worker's memories stay right: each
is keyed by what would make it wrong); a test run does, whose rolled-back databases give ids
back and whose tests each run their own event loop (``tests/web/conftest.py``, the shared live
server between tests).
"""
from __future__ import annotations

from typing import Callable

_forgetters: list[Callable[[], None]] = []


def remembered(forget_it: Callable[[], None]) -> Callable[[], None]:
    """Register ``forget_it()``, which empties one memory of this process (it must not raise and
    must be safe from any thread); returns it."""
    if forget_it not in _forgetters:
        _forgetters.append(forget_it)
    return forget_it


def forget() -> None:
    """Empty every memory registered (:func:`remembered`), in the order they were registered."""
    for forget_it in list(_forgetters):
        forget_it()
