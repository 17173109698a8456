"""Helpers for the engine tests: a match from a short configuration."""
import pytest

from sinuca import Match


def new_match(**config) -> Match:
    """A 15-red match between Ana (0) and Bia (1), Ana breaking, unless ``config`` says otherwise."""
    base = {"players": ["Ana", "Bia"], "first_breaker": 0}
    base.update(config)
    if "position" in config:
        base.pop("first_breaker", None) if "first_breaker" not in config else None
    return Match(base)


def position(reds=0, colours=(2, 3, 4, 5, 6, 7), scores=(0, 0), striker=0, **config) -> Match:
    """A match starting from a position (contract section 2)."""
    cfg = {"players": ["Ana", "Bia"],
           "position": {"reds_remaining": reds, "colours_remaining": list(colours),
                        "scores": list(scores), "striker": striker}}
    cfg.update(config)
    return Match(cfg)


def run(m: Match, *events) -> dict:
    """Apply events given as dicts and return the final state."""
    for ev in events:
        m.apply(ev)
    return m.state()


@pytest.fixture
def match() -> Match:
    return new_match()
