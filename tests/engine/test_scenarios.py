"""Every rule scenario (tests/scenarios: the public ones and the project's own) through the engine's
Python API and through ``python -m sinuca replay``."""
import json
import pathlib
import subprocess
import sys

import pytest

from sinuca import Match, SinucaError

ROOT = pathlib.Path(__file__).resolve().parents[2]
DIRS = [ROOT / "tests" / "scenarios"]


def _scenarios() -> list[pathlib.Path]:
    found: dict[str, pathlib.Path] = {}
    for d in DIRS:
        for f in sorted(d.glob("*.json")) if d.is_dir() else []:
            found.setdefault(f.name, f)
    return [found[k] for k in sorted(found)]


SCENARIOS = _scenarios()


def test_the_scenarios_are_there():
    assert len(SCENARIOS) >= 47


def refusal(sc: dict) -> SinucaError | None:
    """The engine's error for a scenario that expects one (its Python API), else ``None``."""
    try:
        Match.replay(sc["config"], sc["events"])
    except SinucaError as e:
        return e
    return None


def _check(sc: dict, status: int, out: dict) -> None:
    if "expect_error" in sc:
        want = sc["expect_error"]
        assert status == 1, out
        assert out["error"]["index"] == want["index"]
        assert out["error"]["code"] == want["code"]
        assert " / " in out["error"]["message"]  # Portuguese / English
        if "reason" in want:
            # the refusal's own words (its message id), not a general message of the same code
            e = refusal(sc)
            assert e.msg_id == f"{want['code']}.{want['reason']}", e.msg_id
            assert out["error"]["message"] == e.message
    else:
        assert status == 0, out
        for key, want in sc["expect"].items():
            assert out[key] == want, key


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_through_the_api(path):
    sc = json.loads(path.read_text())
    try:
        m = Match(sc["config"])
    except SinucaError as e:
        _check(sc, 1, {"error": {"index": -1, **e.as_dict()}})
        return
    for i, ev in enumerate(sc["events"]):
        try:
            m.apply(ev)
        except SinucaError as e:
            _check(sc, 1, {"error": {"index": i, **e.as_dict()}})
            return
    _check(sc, 0, m.state())


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_scenario_through_the_command_line(path, capsys):
    """The command line's own code (``sinuca.cli.main``: reading the file, the JSON it prints, the
    exit status) in this process: an interpreter per scenario was a quarter of the engine tests'
    time. :func:`test_scenario_through_python_m_sinuca` runs the real ``python -m sinuca``."""
    from sinuca.cli import main

    status = main(["replay", str(path)])
    _check(json.loads(path.read_text()), status, json.loads(capsys.readouterr().out))


SAMPLE = SCENARIOS[::20]  # every twentieth scenario, errors and ends of match among them


@pytest.mark.parametrize("path", SAMPLE, ids=[p.stem for p in SAMPLE])
def test_scenario_through_python_m_sinuca(path):
    sc = json.loads(path.read_text())
    doc = json.dumps({"config": sc["config"], "events": sc["events"]})
    proc = subprocess.run([sys.executable, "-m", "sinuca", "replay", "-"], input=doc, text=True,
                          capture_output=True, cwd=ROOT, timeout=60)
    _check(sc, proc.returncode, json.loads(proc.stdout))
