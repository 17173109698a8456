"""Doubles (issue 19; Art. 1 "individualmente ou em conjunto"): sides of 1 to 4 players.

Two kinds of checks: a one-player side is exactly today's engine (the engine as it was before
doubles, taken from git at that commit and imported under another name, against the engine now,
on random matches: same configuration, same state JSON, same errors, same lines), and the
decisions of the issue (docs/contract.md section 11) on doubles matches, with a property that the
order of play never skips a player but after *passar* or *retorno*.
"""
import importlib.util
import json
import pathlib
import random
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sinuca import Match, SinucaError
from sinuca.simulate import next_event

from .test_properties import configs, raw_events

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The last commit before sides of several players: "today's engine" of the issue.
BEFORE_DOUBLES = "256734cd1cfeeeca1c7e9344bc9fd5d360f2d275"
D = [["Ana", "Carla"], ["Bia", "Duda"]]
FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _frozen_engine(tmp: pathlib.Path):
    """The ``sinuca`` package of ``BEFORE_DOUBLES``, importable as ``sinuca_before``."""
    pkg = tmp / "sinuca_before"
    pkg.mkdir()
    names = subprocess.run(["git", "ls-tree", "--name-only", BEFORE_DOUBLES, "sinuca/"], cwd=ROOT,
                           capture_output=True, text=True, check=True).stdout.split()
    for name in names:
        if name.endswith(".py"):
            src = subprocess.run(["git", "show", f"{BEFORE_DOUBLES}:{name}"], cwd=ROOT,
                                 capture_output=True, text=True, check=True).stdout
            (pkg / pathlib.Path(name).name).write_text(src)
    spec = importlib.util.spec_from_file_location("sinuca_before", pkg / "__init__.py",
                                                  submodule_search_locations=[str(pkg)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["sinuca_before"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def before(tmp_path_factory):
    try:
        return _frozen_engine(tmp_path_factory.mktemp("frozen"))
    except (subprocess.CalledProcessError, FileNotFoundError):
        pytest.fail("no git history to take the engine before doubles from: run on a full clone")


def _dump(m) -> str:
    """The state as JSON, read as the frozen engine keeps it: decided since (contract section 6,
    Art. 52, 12.2), the 7 that wins a decider stays off the table; it stayed listed before."""
    s = m.state()
    if s["decider"] and s["phase"] in ("frame_over", "match_over") and not s["colours_remaining"]:
        s["colours_remaining"] = [7]
    return json.dumps(s, sort_keys=True)


def _outcome(m, ev, words: bool = True):
    """What applying ``ev`` gives: the description (``words``) and state, or the error code and
    message."""
    try:
        step = m.apply(ev)
    except Exception as e:  # noqa: BLE001 - both engines' SinucaError, told apart by code
        return ("error", getattr(e, "code", type(e).__name__), str(e))
    return ("ok", json.dumps(step.description, sort_keys=True) if words else "", _dump(m))


def _decided_since(m, ev) -> bool:
    """``ev`` is accepted now on a decision taken after doubles (contract section 6), where the
    frozen engine refused it: a foul in a lot or between frames (a disciplinary one is conduct,
    Art. 42, 43) and a concession while the decider's lot is awaited (Art. 50.2). The two
    engines part there on purpose."""
    s, t = m.state(), ev.get("type") if isinstance(ev, dict) else None
    return (t == "foul" and s["phase"] in ("lot", "frame_over")) or (
        t == "concede" and s["phase"] == "lot" and s["decider"])


def _options_before(m) -> dict:
    """``m.options()`` without the events decided since (:func:`_decided_since`)."""
    o = m.options()
    s = m.state()
    later = {"foul"} if s["phase"] in ("lot", "frame_over") else set()
    if s["phase"] == "lot" and s["decider"]:
        later.add("concede")
    return dict(o, events=[e for e in o["events"] if e not in later])


# -- a one-player side is today's engine ---------------------------------------------------------

def test_the_frozen_engine_is_the_one_before_doubles(before):
    assert not hasattr(before.Match, "sides")
    assert "order" not in before.EVENT_TYPES


@FAST
@given(configs, st.lists(raw_events, max_size=50), st.booleans())
def test_one_player_sides_equal_the_engine_before_doubles_on_random_streams(before, config, events, nested):
    cfg = dict(config, players=[["Ana"], ["Bia"]]) if nested else config
    now, then, plain = Match(cfg), before.Match(config), Match(config)
    assert now.config == then.config  # [["Ana"], ["Bia"]] is ["Ana", "Bia"]
    assert _dump(now) == _dump(then)
    for ev in events:
        if _decided_since(now, ev):
            break
        # the same state and refusals as before doubles; the lines' words are today's, the same
        # for one-player sides as for the plain configuration
        got = _outcome(now, ev)
        assert got == _outcome(plain, ev), ev
        assert (got if got[0] == "error" else ("ok", "", got[2])) == _outcome(then, ev, False), ev


@FAST
@given(st.integers(0, 10**9), configs)
def test_one_player_sides_equal_the_engine_before_doubles_on_random_matches(before, seed, config):
    now, then = Match(config), before.Match(config)
    rng = random.Random(seed)
    for _ in range(400):
        ev = next_event(now, rng, 0.03)
        if ev is None or _decided_since(now, ev):
            break
        assert _options_before(now) == then.options()
        assert _outcome(now, ev, False) == _outcome(then, ev, False), ev
        assert now.pending_foul() == then.pending_foul()
    assert _dump(now) == _dump(then)
    assert set(now.state()) == set(then.state())  # no doubles field in a singles match


def test_a_stored_singles_match_folds_to_the_same_json(before):
    """The JSON of an existing match (its configuration and log) folds byte for byte as before."""
    for path in sorted((ROOT / "tests" / "scenarios").glob("*.json")):
        sc = json.loads(path.read_text())
        if path.name.startswith("doubles-"):
            continue
        try:
            then = before.Match.replay(sc["config"], sc["events"])
        except Exception:  # noqa: BLE001 - a scenario of a refused event
            continue
        now = Match.replay(sc["config"], sc["events"])
        assert list(now.state()) == list(then.state()), path.name  # the same keys in the same order
        assert _dump(now) == _dump(then), path.name


# -- configuration ------------------------------------------------------------------------------

def test_sides_are_normalized_to_side_names_and_their_players():
    m = Match({"players": D, "first_breaker": 0})
    assert m.config["players"] == ["Ana / Carla", "Bia / Duda"]
    assert m.config["sides"] == D
    assert Match(m.config).config == m.config  # the stored configuration is accepted again
    assert m.sides == D and m.doubles


def test_a_side_may_be_one_name_and_a_side_may_be_labelled():
    m = Match({"players": ["Ana", ["Bia", "Duda"]]})
    assert m.config["sides"] == [["Ana"], ["Bia", "Duda"]]
    assert m.config["players"] == ["Ana", "Bia / Duda"]
    m = Match({"players": ["Clube A", "Clube B"], "sides": D})
    assert m.config["players"] == ["Clube A", "Clube B"]


def test_one_player_sides_keep_todays_configuration_and_state():
    m = Match({"players": [["Ana"], ["Bia"]], "first_breaker": 0})
    assert m.config == {"reds": 15, "frames_to_win": 1, "players": ["Ana", "Bia"], "first_breaker": 0,
                        "retorno": True}
    assert "striker_player" not in m.state() and not m.doubles
    assert m.sides == [["Ana"], ["Bia"]]
    # Two players may share a name in singles, as before.
    assert Match({"players": ["Ana", "Ana"]}).config["players"] == ["Ana", "Ana"]


@pytest.mark.parametrize("players, sides, msg_id", [
    ([["Ana", "Carla"], []], None, "invalid_config.side_empty"),
    ([["A", "B", "C", "D", "E"], ["F"]], None, "invalid_config.side_too_big"),
    ([["Ana", "Carla"], ["Bia", "ana"]], None, "invalid_config.player_twice"),
    ([["Ana", "Ana"], ["Bia"]], None, "invalid_config.player_twice"),
    ([["Ana", ""], ["Bia"]], None, "invalid_config.side_name"),
    (["Ana", ["Bia", " "]], None, "invalid_config.side_name"),
    ([["Ana"], ["Bia"], ["Duda"]], None, "invalid_config.sides_count"),
    (["Ana", "Bia", "Duda"], None, "invalid_config.sides_count"),
    ([["Ana", "Carla"]], None, "invalid_config.sides_count"),
    (["A", "B"], [["Ana"]], "invalid_config.sides_count"),
    (["A", "B"], [["Ana"], ["Bia"], ["Duda"]], "invalid_config.sides_count"),
    (["A", "B"], [["Ana", 3], ["Bia"]], "invalid_config.side_name"),
    (["A", "B"], ["Ana", ["Bia"]], "invalid_config.sides"),
])
def test_bad_sides_are_refused_in_portuguese_and_english(players, sides, msg_id):
    cfg = {"players": players} if sides is None else {"players": players, "sides": sides}
    with pytest.raises(SinucaError) as e:
        Match(cfg)
    assert e.value.code == "invalid_config" and e.value.msg_id == msg_id
    assert e.value.message_pt.startswith("Configuração inválida") and "Art. 1" in e.value.message_en


def test_side_errors_name_the_side():
    with pytest.raises(SinucaError) as e:
        Match({"players": [["A", "B", "C", "D", "E"], ["F"]]})
    assert e.value.message_en == "Invalid configuration: side A has 5 players; at most 4 (Art. 1)"
    assert e.value.message_pt == "Configuração inválida: o lado A tem 5 jogadores; o máximo é 4 (Art. 1)"


def test_three_sides_and_an_empty_name_in_a_side_get_their_own_words():
    """A match of three sides, and a side with a nameless player, said what was wrong only with
    the general 'players must be a list of two names…'."""
    with pytest.raises(SinucaError) as e:
        Match({"players": [["Ana", "Carla"], ["Bia", "Duda"], ["Eva", "Fia"]]})
    assert e.value.message_en == ("Invalid configuration: a match has exactly two sides, not 3: each penalty "
                                  "goes to one opponent (Art. 1, 35.1)")
    assert e.value.message_pt == ("Configuração inválida: um jogo tem exatamente dois lados, não 3: cada "
                                  "penalidade vai a um só adversário (Art. 1, 35.1)")
    with pytest.raises(SinucaError) as e:
        Match({"players": [["Ana", "Carla"], ["Bia", ""]]})
    assert e.value.message_en == "Invalid configuration: player 2 of side B has no name (Art. 1)"
    assert e.value.message_pt == "Configuração inválida: o jogador 2 do lado B não tem nome (Art. 1)"
    with pytest.raises(SinucaError) as e:  # a singles name left empty keeps today's message
        Match({"players": ["Ana", ""]})
    assert e.value.msg_id == "invalid_config.players"


# -- the order of play --------------------------------------------------------------------------

def _doubles(**cfg) -> Match:
    return Match({"players": D, "first_breaker": 0, **cfg})


def _who(m: Match) -> tuple | None:
    return m.at_table_player()


def test_the_players_alternate_sides_in_the_listed_order():
    m = _doubles()
    seen = [_who(m)]
    for _ in range(4):
        m.apply({"type": "no_pot"})
        seen.append(_who(m))
    assert seen == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 0)]
    assert m.state()["next_player"] == 0 and m.next_player() == (1, 0)


def test_the_order_is_set_before_the_first_stroke_and_then_fixed():
    m = _doubles()
    m.apply({"type": "order", "order": [[1, 0], [1, 0]]})
    assert _who(m) == (0, 1) and m.state()["order"] == [[1, 0], [1, 0]]
    assert "order" in m.options()["events"]
    m.apply({"type": "pot", "balls": [1]})
    assert "order" not in m.options()["events"]
    before = json.dumps(m.state())
    with pytest.raises(SinucaError) as e:
        m.apply({"type": "order", "order": [[0, 1], [0, 1]]})
    assert e.value.code == "wrong_phase" and e.value.msg_id == "wrong_phase.order_started"
    assert json.dumps(m.state()) == before


@pytest.mark.parametrize("order", [[[0, 0], [0, 1]], [[0], [0, 1]], [[0, 1, 2], [0, 1]], [[0, 1]],
                                   "0,1", [[0, True], [0, 1]], [[0, 1], [1, 2]]])
def test_an_order_that_skips_or_repeats_a_player_is_refused(order):
    m = _doubles()
    before = json.dumps(m.state())
    with pytest.raises(SinucaError) as e:
        m.apply({"type": "order", "order": order})
    assert e.value.code == "invalid_event" and e.value.msg_id == "invalid_event.order"
    assert "sides of 2 and 2 players" in e.value.message_en and "lados de 2 e 2" in e.value.message_pt
    assert json.dumps(m.state()) == before and len(m) == 0


def test_the_order_in_singles_is_accepted_and_changes_nothing():
    m = Match({"players": ["Ana", "Bia"], "first_breaker": 0})
    before = json.dumps(m.state())
    m.apply({"type": "order", "order": [[0], [0]]})
    assert json.dumps(m.state()) == before
    assert "order" not in m.options()["events"]


def test_each_frame_starts_with_the_listed_order_and_the_breaker_alternates_by_side():
    m = _doubles(frames_to_win=2)
    m.apply({"type": "order", "order": [[1, 0], [1, 0]]})
    m.apply({"type": "concede", "player": 1})
    m.apply({"type": "next_frame"})
    s = m.state()
    assert (s["breaker"], s["striker"], s["striker_player"], s["order"]) == (1, 1, 0, [[0, 1], [0, 1]])


def test_a_restarted_frame_keeps_its_order_and_starts_it_again():
    m = _doubles()
    m.apply({"type": "order", "order": [[1, 0], [0, 1]]})
    m.apply({"type": "no_pot"})
    m.apply({"type": "no_pot"})
    m.apply({"type": "restart_frame"})  # Art. 53.3: the same side breaks, the order from its start
    assert _who(m) == (0, 1) and m.state()["order"] == [[1, 0], [0, 1]]
    assert "order" in m.options()["events"]


def test_after_pass_the_offender_plays_again_and_the_order_goes_on_after_him():
    m = _doubles()
    m.apply({"type": "no_pot"})            # Ana misses; Bia at the table
    m.apply({"type": "foul", "ball": 4})   # Bia fouls
    assert m.pending_foul()["person"] == 0 and _who(m) == (0, 1)  # Carla would play on jogar
    m.apply({"type": "decision", "choice": "pass"})
    assert _who(m) == (1, 0)               # Bia again
    m.apply({"type": "no_pot"})
    assert _who(m) == (0, 1)               # Carla
    m.apply({"type": "no_pot"})
    assert _who(m) == (1, 1)               # Duda: nobody skipped


def test_after_retorno_the_offender_replays_then_the_order_goes_on():
    m = _doubles()
    m.apply({"type": "foul", "ball": 1, "retorno": True})  # Ana
    m.apply({"type": "decision", "choice": "retorno"})
    assert _who(m) == (0, 0)
    m.apply({"type": "no_pot"})
    assert _who(m) == (1, 0)
    m.apply({"type": "no_pot"})
    assert _who(m) == (0, 1)


def test_jogar_gives_the_table_to_the_beneficiarys_player_due():
    m = _doubles()
    m.apply({"type": "no_pot"})   # Ana
    m.apply({"type": "no_pot"})   # Bia
    m.apply({"type": "foul", "ball": 1, "snooker": True})  # Carla
    m.apply({"type": "decision", "choice": "play"})
    assert _who(m) == (1, 1) and m.state()["free_ball"] is True  # Duda, with the side's free ball


# -- fouls and warnings by the person -------------------------------------------------------------

def test_a_foul_names_the_person_and_the_line_says_who():
    m = _doubles()
    step = m.apply({"type": "foul", "ball": 5})
    assert step.description["en"] == "Foul by Ana: 5 points to Bia / Duda (Art. 40)"
    assert (step.foul["offender"], step.foul["person"], step.foul["receiver"]) == (0, 0, 1)
    step = m.apply({"type": "decision", "choice": "play"})
    assert step.description["pt"] == "Bia joga (Art. 35.3)"
    assert m.apply({"type": "no_pot"}).description["en"] == "Bia misses; Carla to play"


def test_a_foul_naming_someone_not_in_the_match_is_refused():
    m = _doubles()
    before = json.dumps(m.state())
    for ev, code, msg_id in [({"type": "foul", "person": 2}, "illegal_foul", "illegal_foul.person_not_in_match"),
                             ({"type": "foul", "person": -1}, "invalid_event", "invalid_event.person"),
                             ({"type": "foul", "person": "Eva"}, "invalid_event", "invalid_event.person"),
                             ({"type": "foul", "kind": "misconduct", "player": 1}, "illegal_foul",
                              "illegal_foul.person_required"),
                             ({"type": "foul", "person": 1}, "illegal_foul", "illegal_foul.seated_not_disciplinary")]:
        with pytest.raises(SinucaError) as e:
            m.apply(ev)
        assert (e.value.code, e.value.msg_id) == (code, msg_id), ev
        assert " / " in e.value.message
        assert json.dumps(m.state()) == before and len(m) == 0
    with pytest.raises(SinucaError) as e:
        Match({"players": ["Ana", "Bia"], "first_breaker": 0}).apply({"type": "foul", "person": 1})
    assert e.value.msg_id == "illegal_foul.person_not_in_match"
    assert "Side A has no player 1" in e.value.message_en


def test_warnings_are_the_persons_and_a_second_disqualifies_his_side():
    m = _doubles()
    m.apply({"type": "foul", "kind": "slow_play", "person": 1})  # Carla, not at the table
    assert m.state()["phase"] == "play" and _who(m) == (0, 0) and m.state()["scores"] == [0, 7]
    m.apply({"type": "no_pot"})
    m.apply({"type": "foul", "kind": "slow_play", "player": 0, "person": 0})  # Ana, seated
    s = m.state()
    assert s["warnings"] == [2, 0] and s["player_warnings"] == [[1, 1], [0, 0]] and s["match_result"] is None
    step = m.apply({"type": "foul", "kind": "misconduct", "player": 0, "person": 1})  # Carla again
    assert step.match_end["winner"] == 1 and m.state()["match_result"] == "disqualification"
    assert "Carla disqualified" in step.description["en"]


def test_a_grave_foul_disqualifies_the_side():
    m = _doubles()
    m.apply({"type": "foul", "kind": "misconduct", "grave": True, "player": 1, "person": 1})
    assert m.state()["match_winner"] == 0 and m.state()["player_warnings"] == [[0, 0], [0, 1]]


def test_the_aggravated_chain_is_the_sides_while_the_person_at_the_table_changes():
    """Art. 27, 44, 46 in doubles: the offender replays each retorno, the other side's player due
    decides in between, the partner's disciplinary foul meanwhile neither breaks nor extends the
    chain, and the third aggravated foul loses the frame for the side."""
    m = _doubles(frames_to_win=2)
    m.apply({"type": "no_pot"})
    m.apply({"type": "no_pot"})
    agg = {"type": "foul", "ball": 1, "aggravated": True, "retorno": True}
    seen = [(_who(m), m.state()["aggravated_fouls"], m.state()["warning"])]
    for ev in [agg, {"type": "decision", "choice": "retorno"}, agg,
               {"type": "foul", "kind": "slow_play", "player": 0, "person": 0},
               {"type": "decision", "choice": "retorno"}]:
        step = m.apply(ev)
        seen.append((_who(m), m.state()["aggravated_fouls"], m.state()["warning"]))
    assert seen == [((0, 1), 0, None),                          # Carla at the table
                    ((1, 1), 1, None),                          # Duda decides
                    ((0, 1), 1, None),                          # Carla replays
                    ((1, 1), 2, "aggravated_last_chance"),      # Duda decides, the side warned
                    ((1, 1), 2, "aggravated_last_chance"),      # Ana's seated foul: the chain stands
                    ((0, 1), 2, "aggravated_last_chance")]      # Carla replays her last chance
    step = m.apply(agg)
    assert step.frame_end["winner"] == 1 and step.frame_end["ended_by"] == "aggravated"
    assert step.description["en"].startswith("Foul by Carla: 4 points to Bia / Duda (Art. 40)")
    assert m.state()["player_warnings"] == [[1, 0], [0, 0]]


def test_a_disqualification_may_name_the_person_and_loses_the_match_for_his_side():
    m = _doubles()
    step = m.apply({"type": "disqualify", "players": [0], "persons": [1]})
    assert step.description["en"] == "Carla disqualified (Art. 54.4) — Bia / Duda wins the match, Ana / Carla disqualified"
    assert step.description["pt"].startswith("Desclassificação de Carla (Art. 54.4)")
    assert step.match_end["winner"] == 1 and step.match_end["article"] == "54.4"
    m = _doubles()
    step = m.apply({"type": "disqualify", "players": [1, 0], "persons": [1, 0]})
    assert step.description["en"] == "Ana and Duda disqualified (Art. 55) — match over, no winner"
    m = _doubles()
    assert m.apply({"type": "disqualify", "players": [0]}).description["en"].startswith(
        "Ana / Carla disqualified (Art. 54.4)")  # the side, when the referee names nobody
    for bad in ([2], [0, 1], [-1], "1", [True], [None]):
        m = _doubles()
        with pytest.raises(SinucaError) as e:
            m.apply({"type": "disqualify", "players": [0], "persons": bad})
        assert e.value.msg_id == "invalid_event.persons" and "sides of 2 and 2 players" in e.value.message_en
        assert len(m) == 0 and m.state()["phase"] == "play"
    single = Match({"players": ["Ana", "Bia"], "first_breaker": 0})
    with pytest.raises(SinucaError):
        single.apply({"type": "disqualify", "players": [0], "persons": [1]})
    assert single.apply({"type": "disqualify", "players": [0], "persons": [0]}).description == \
        Match({"players": ["Ana", "Bia"], "first_breaker": 0}).apply({"type": "disqualify", "players": [0]}).description


def test_undo_takes_back_the_order_and_the_rotation():
    m = _doubles()
    m.apply({"type": "order", "order": [[1, 0], [1, 0]]})
    m.apply({"type": "no_pot"})
    m.undo()
    m.undo()
    assert m.state()["order"] == [[0, 1], [0, 1]] and _who(m) == (0, 0)


def test_a_side_of_three_against_one():
    m = Match({"players": [["A1", "A2", "A3"], "B"], "first_breaker": 0})
    seen = []
    for _ in range(6):
        seen.append(_who(m))
        m.apply({"type": "no_pot"})
    assert seen == [(0, 0), (1, 0), (0, 1), (1, 0), (0, 2), (1, 0)]


# -- the order never skips a player but after passar or retorno ---------------------------------

@FAST
@given(st.integers(0, 10**9), st.sampled_from([[2, 2], [1, 2], [3, 2], [4, 4]]), st.integers(1, 2),
       st.booleans())
def test_the_order_never_skips_a_player_except_after_passar(seed, sizes, ftw, set_order):
    sides = [[f"{'AB'[i]}{j}" for j in range(k)] for i, k in enumerate(sizes)]
    m = Match({"players": sides, "frames_to_win": ftw})
    rng = random.Random(seed)
    last: dict = {}  # per side, the player of its latest visit in this frame
    frame = prev = None
    for _ in range(500):
        pending = m.pending_foul()
        if set_order and "order" in m.options()["events"] and rng.random() < 0.5:
            ev = {"type": "order", "order": [rng.sample(range(k), k) for k in sizes]}
        else:
            ev = next_event(m, rng, 0)
            if ev is None:
                break
        try:
            m.apply(ev)
        except SinucaError:
            continue  # the simulator draws again, as sinuca.simulate.play does
        s = m.state()
        if s["frame_number"] != frame or ev["type"] == "order":
            frame, last, prev = s["frame_number"], {}, None  # the frame's order starts again
        if s["phase"] != "play":
            continue
        who = m.at_table_player()
        if who == prev and ev["type"] != "decision":
            continue  # the same visit goes on
        side, player = who
        order = s["order"][side]
        if ev["type"] == "decision" and ev["choice"] in ("pass", "retorno"):
            assert (side, player) == (pending["offender"], pending["person"])  # the offender again
        elif side in last:
            assert player == order[(order.index(last[side]) + 1) % len(order)], (last, who)
        else:
            assert player == order[0]
        last[side] = player
        prev = who


doubles_events = st.one_of(
    raw_events,
    st.builds(lambda o: {"type": "order", "order": o},
              st.one_of(st.lists(st.lists(st.integers(-1, 3), max_size=4), max_size=3), st.just("x"))),
    st.builds(lambda k, pl, pe: {k2: v for k2, v in {"type": "foul", "kind": k, "player": pl, "person": pe}.items()
                                 if v is not None},
              st.sampled_from([None, "other", "slow_play", "misconduct"]), st.one_of(st.none(), st.integers(0, 1)),
              st.one_of(st.none(), st.integers(-1, 4), st.just("Ana"))),
)


@FAST
@given(st.sampled_from([[2, 2], [1, 3], [4, 4]]), st.lists(doubles_events, max_size=60))
def test_random_doubles_streams_raise_only_contract_errors_and_rejections_change_nothing(sizes, events):
    sides = [[f"{'AB'[i]}{j}" for j in range(k)] for i, k in enumerate(sizes)]
    m = Match({"players": sides, "first_breaker": 0})
    for ev in events:
        before, n = json.dumps(m.state()), len(m)
        if isinstance(ev, dict) and ev.get("type") == "foul":
            m.foul_preview(ev)  # the dialog's preview answers every foul, refused or not
        try:
            step = m.apply(ev)
            assert step.description["pt"] and step.description["en"]  # every line can be written
            m.options(), m.pending_foul(), m.at_table_player()
        except SinucaError as e:
            assert e.code in {"invalid_event", "wrong_phase", "match_over", "illegal_pot", "illegal_free_ball",
                              "illegal_foul", "retorno_not_allowed", "nothing_to_undo"}
            assert " / " in e.message
            assert json.dumps(m.state()) == before and len(m) == n
        s = m.state()
        if s["striker_player"] is not None:
            assert 0 <= s["striker_player"] < sizes[s["striker"]]
        # who plays next is known in play only; in a decision it hangs on the choice
        if s["phase"] == "play":
            assert 0 <= s["next_player"] < sizes[1 - s["striker"]]
        else:
            assert s["next_player"] is None
        assert (m.at_table_player(), m.next_player()) == (
            (s["striker"], s["striker_player"]) if s["striker_player"] is not None else None,
            (1 - s["striker"], s["next_player"]) if s["next_player"] is not None else None)
        assert [sorted(o) for o in s["order"]] == [list(range(k)) for k in sizes]
        assert [sum(w) for w in s["player_warnings"]] == s["warnings"]
