"""The one error type of the tournament core: a code and a reason in Portuguese and English.

Every public function that rejects its input raises :class:`TournamentError` and changes
nothing (all inputs are immutable or copied). The Django side shows ``message`` and may key
its own handling on ``code``.
"""
from __future__ import annotations


class TournamentError(ValueError):
    """Bad tournament input.

    Attributes:
        code: a stable identifier (``"too_few_entrants"``, ``"unknown_format"``,
            ``"duplicate_entrant"``, ``"players_unknown"``, ``"correction_refused"``, …).
        pt: the reason in Brazilian Portuguese.
        en: the same reason in English.
        message: ``"<pt> / <en>"``.
    """

    def __init__(self, code: str, pt: str, en: str) -> None:
        self.code = code
        self.pt = pt
        self.en = en
        self.message = f"{pt} / {en}"
        super().__init__(self.message)

    def as_dict(self) -> dict:
        """``{"code", "message", "pt", "en"}``: the error object for an API answer."""
        return {"code": self.code, "message": self.message, "pt": self.pt, "en": self.en}
