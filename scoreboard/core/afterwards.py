"""Work a referee's tap hands on, held until the tap's answer is sent.

A tap that ends a match hands its competition's reaction (standings, the next matches, the freed
table called: ``competitions.after_change``) to the background. Started at once, that work
shares the interpreter with the tap's own last steps (the view's return, the middleware, the
answer written by the event loop) and the referee's answer waited for it: a thread that holds
the GIL gives it up only every switch interval (5 ms). So the tap's ASGI gate
(``http.capacity.WriterGate``) opens a hold for the request (:func:`holding`), the background
hand-over asks to wait in it (:func:`hold`), and the gate lets the held work go once the answer
is sent. Outside a tap's request (a desk action, a command, a test's client) nothing is held.

The hold is a context variable: the request's thread sees the gate's list (asgiref runs the
view in a copy of the gate's context, and the list is shared), and no other request does.
"""
from __future__ import annotations

import logging
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator

logger = logging.getLogger(__name__)

_held: ContextVar[list | None] = ContextVar("scoreboard_afterwards", default=None)


def hold(fn: Callable[[], object]) -> bool:
    """Have ``fn()`` called once this request's answer is sent, when a hold is open
    (:func:`holding`): True then; False (nothing held: the caller goes on now) otherwise.
    ``fn`` runs on the event loop: it must only hand work on (queue it), never block."""
    held = _held.get()
    if held is None:
        return False
    held.append(fn)
    return True


@contextmanager
def holding() -> Iterator[None]:
    """Open a hold for the request run inside the ``with`` (the tap's ASGI gate, around the
    application, so the block ends when the answer is sent), then call what was held, in
    order; a failure is logged and the rest still run."""
    held: list = []
    token = _held.set(held)
    try:
        yield
    finally:
        _held.reset(token)
        for fn in held:
            try:
                fn()
            except Exception:  # noqa: BLE001 - the work was marked due; the next check runs it
                logger.exception("work held until a tap's answer failed to start")
