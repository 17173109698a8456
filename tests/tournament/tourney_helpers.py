"""Shared helpers: a competition from a few arguments, and playing out a plan."""
import random

from tournament import build, evaluate, make_draw, parse_competition


def comp(n, stages, seed=1, **extra):
    data = {"name": "Etapa", "reds": 15, "draw_seed": seed,
            "players": [f"P{i}" for i in range(1, n + 1)], "stages": stages}
    data.update(extra)
    return parse_competition(data)


def win(m, side, loser_frames=0):
    """A frames result: side 0 (a) or 1 (b) wins by ``frames_to_win``."""
    k = m.fixture.frames_to_win
    fr = [loser_frames, loser_frames]
    fr[side] = k
    return {"winner": m.players[side], "frames": fr}


def play_out(plan, rng, results=None, withdrawn=()):
    """Feed results to ready matches in a random order until nothing is ready; returns
    (results, final state, list of states' ready lists)."""
    results = dict(results or {})
    while True:
        state = evaluate(plan, results, withdrawn)
        ready = state.ready()
        if not ready:
            return results, state
        m = rng.choice(ready)
        results[m.id] = win(m, rng.randrange(2), rng.randrange(m.fixture.frames_to_win))
