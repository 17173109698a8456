"""Write demo/final.json: a seeded best-of-3 15-red match played by ``sinuca.simulate``.

    .venv/bin/python demo/make_final.py

Seed 124 was picked among 400 for a match that goes to the third frame with a 49 break, fouls,
free balls and retornos; ``python -m sinuca replay demo/final.json`` replays it to the end.
"""
import json
import pathlib

from sinuca.simulate import play_match

CONFIG = {"players": ["Ana Souza", "Bia Lima"], "reds": 15, "frames_to_win": 2, "retorno": True}
SEED = 124

if __name__ == "__main__":
    events = play_match(CONFIG, seed=SEED, undo_rate=0.01)
    out = pathlib.Path(__file__).with_name("final.json")
    out.write_text(json.dumps({"config": CONFIG, "events": events}, ensure_ascii=False, indent=0) + "\n")
    print(f"{out}: {len(events)} events")
