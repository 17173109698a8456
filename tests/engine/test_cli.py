"""``python -m sinuca replay`` (contract section 9): exit statuses and outputs."""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]


def replay(arg: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sinuca", "replay", arg], input=stdin, text=True,
                          capture_output=True, cwd=ROOT, timeout=60)


def test_it_prints_the_state_and_exits_0(tmp_path):
    f = tmp_path / "m.json"
    f.write_text(json.dumps({"config": {"players": ["Ana", "Bia"], "first_breaker": 1},
                             "events": [{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [6]}]}))
    p = replay(str(f))
    assert p.returncode == 0
    out = json.loads(p.stdout)
    assert (out["scores"], out["break"], out["striker"], out["ball_on"]) == ([0, 7], 7, 1, [1])
    assert len(out) == 24  # every state field of section 7


def test_a_rejected_event_prints_the_error_and_the_state_before_it():
    doc = {"config": {"players": ["Ana", "Bia"], "first_breaker": 0},
           "events": [{"type": "pot", "balls": [1]}, {"type": "pot", "balls": [1]}]}
    p = replay("-", json.dumps(doc))
    assert p.returncode == 1
    out = json.loads(p.stdout)
    assert out["error"]["index"] == 1 and out["error"]["code"] == "illegal_pot"
    assert out["state"]["scores"] == [1, 0]


def test_a_rejected_configuration_has_index_minus_1_and_no_state():
    p = replay("-", json.dumps({"config": {"players": ["Ana", "Bia"], "reds": 7}, "events": []}))
    assert p.returncode == 1
    out = json.loads(p.stdout)
    assert out["error"]["index"] == -1 and out["error"]["code"] == "invalid_config" and "state" not in out


def test_unreadable_or_invalid_json_exits_2(tmp_path):
    p = replay(str(tmp_path / "missing.json"))
    assert p.returncode == 2 and p.stdout == "" and "cannot read" in p.stderr
    p = replay("-", "{not json")
    assert p.returncode == 2 and "invalid JSON" in p.stderr
    p = replay("-", "[1, 2]")
    assert p.returncode == 2


def test_bad_bytes_huge_numbers_and_deep_nesting_exit_2_without_a_traceback(tmp_path):
    for i, data in enumerate([b'{"config": "\xe9t\xe9"}', b'{"n": ' + b"9" * 5000 + b"}",
                              b"[" * 100_000 + b"]" * 100_000]):
        f = tmp_path / f"bad{i}.json"
        f.write_bytes(data)
        p = replay(str(f))
        assert p.returncode == 2, p.stderr[-300:]
        assert "Traceback" not in p.stderr and "invalid JSON" in p.stderr
