"""Typed errors of the rules engine (``docs/contract.md`` section 8).

Every error is a :class:`ValueError` carrying the contract's ``code`` and a message in
Portuguese and English that cites the article it follows, taken from the catalogue in
:mod:`sinuca.messages` by :func:`error`. A rejected event changes nothing.
"""
from __future__ import annotations

from .messages import texts


class SinucaError(ValueError):
    """An event or configuration the rules do not accept.

    Attributes:
        code: the contract's error code (``"illegal_pot"``, ``"wrong_phase"``, …).
        message_pt: the reason in Brazilian Portuguese, citing the article.
        message_en: the same reason in English.
        message: ``"<pt> / <en>"``, what the command line and the API print.
        msg_id: the message's id in :data:`sinuca.messages.MESSAGES` (``"illegal_pot.not_on"``),
            ``None`` for an error built from two texts.
        params: the values filled into the message (``{"ball_on": "1"}``), for a screen that
            renders its own translation.
    """

    code = "error"

    def __init__(self, message_pt: str, message_en: str, *, msg_id: str | None = None,
                 params: dict | None = None) -> None:
        self.message_pt = message_pt
        self.message_en = message_en
        self.message = f"{message_pt} / {message_en}"
        self.msg_id = msg_id
        self.params = params if params is not None else {}
        super().__init__(self.message)

    def as_dict(self) -> dict:
        """``{"code", "message"}``: the error object of the command line and the API."""
        return {"code": self.code, "message": self.message}


class InvalidConfig(SinucaError):
    """The match configuration breaks the contract's section 2."""

    code = "invalid_config"


class InvalidEvent(SinucaError):
    """Unknown event type, missing or ill-typed field."""

    code = "invalid_event"


class WrongPhase(SinucaError):
    """The event is not allowed in the current phase."""

    code = "wrong_phase"


class MatchIsOver(SinucaError):
    """The match has ended (Art. 54); only ``undo`` is accepted."""

    code = "match_over"


class IllegalPot(SinucaError):
    """The balls listed are not a legal pot (Art. 11-14, 37): record a foul instead."""

    code = "illegal_pot"


class IllegalFreeBall(SinucaError):
    """No free ball is on, or the colour cannot be nominated as one (Art. 4, 36)."""

    code = "illegal_free_ball"


class IllegalFoul(SinucaError):
    """The foul as described cannot have happened (Art. 38, 47.16, 49)."""

    code = "illegal_foul"


class RetornoNotAllowed(SinucaError):
    """The replay option cannot be given (Art. 26, 29)."""

    code = "retorno_not_allowed"


class NothingToUndo(SinucaError):
    """No event is left to take back."""

    code = "nothing_to_undo"


ERRORS = {cls.code: cls for cls in (InvalidConfig, InvalidEvent, WrongPhase, MatchIsOver, IllegalPot,
                                     IllegalFreeBall, IllegalFoul, RetornoNotAllowed, NothingToUndo)}


def error(msg_id: str, **params) -> SinucaError:
    """The error of catalogue message ``msg_id`` (``"<code>.<reason>"``), of the class of its code.

    >>> e = error("retorno_not_allowed.compulsory")
    >>> type(e).__name__, e.code, e.message_en
    ('RetornoNotAllowed', 'retorno_not_allowed', 'No replay on a compulsory foul (Art. 26.4)')
    """
    params = {k: _shown(v) for k, v in params.items()}
    t = texts(msg_id, **params)
    return ERRORS[msg_id.partition(".")[0]](t["pt"], t["en"], msg_id=msg_id, params=params)


SHOWN_MAX = 40
"""The most characters of a refused value an error message repeats."""


class _Value(str):
    """A refused value as a message shows it: its ``repr`` is the text itself (``[…]``)."""

    def __repr__(self) -> str:
        return str(self)


def _shown(value):
    """What an error message may say of a value taken from the input: numbers, booleans and
    ``None`` as they are, a string cut to :data:`SHOWN_MAX` characters, anything else by its
    type only (``[…]``, ``{…}``). The message of a refused event must never depend on the
    size or the depth of what was sent (a list nested 1,200 deep made ``repr`` recurse)."""
    if value is None or type(value) in (bool, float):
        return value
    if type(value) is int:  # a huge int has no repr at all (Python's 4,300-digit limit)
        return value if -10 ** SHOWN_MAX < value < 10 ** SHOWN_MAX else _Value("<int>")
    if type(value) is str:
        return value if len(value) <= SHOWN_MAX else value[:SHOWN_MAX] + "…"
    if isinstance(value, (list, tuple)):
        return _Value("[…]")
    if isinstance(value, dict):
        return _Value("{…}")
    return _Value(f"<{type(value).__name__}>")
