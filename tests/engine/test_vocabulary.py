"""The engine's vocabulary (enums), its message catalogue, and what a Step tells: exact values,
checked against the contract's strings and the rules text."""
import ast
import json
import pathlib
import re
import string

import pytest

import sinuca
from presentation.labels import frame_end_text, match_result_text
from sinuca import (FOUL_KINDS, MESSAGES, Choice, FoulGroup, FoulKind, FrameEnd, IllegalPot, Match,
                    MatchResult, Phase, RetornoNotAllowed, Sanction, TableWarning, ball_name, error, texts)
from sinuca.vocab import VOCABULARY

from .conftest import new_match, position, run

ROOT = pathlib.Path(__file__).resolve().parents[2]
RULES = ROOT / "sinuca" / "data" / "regras-sinuca-cbbs-2008.txt"
CONTRACT = ROOT / "docs" / "contract.md"
DATA = pathlib.Path(__file__).with_name("data")

POT = lambda *b, **kw: {"type": "pot", "balls": list(b), **kw}  # noqa: E731
FOUL = lambda **kw: {"type": "foul", **kw}  # noqa: E731


# --- the enums carry the contract's strings ----------------------------------------------------

def test_the_enum_values_are_the_contracts_strings():
    assert [p.value for p in Phase] == ["lot", "play", "decision", "frame_over", "match_over"]
    assert [e.value for e in FrameEnd] == ["pot", "foul", "aggravated", "decider", "concession"]
    assert [r.value for r in MatchResult] == ["frames", "concession", "disqualification", "both_disqualified"]
    assert [w.value for w in TableWarning] == ["stalemate", "aggravated_last_chance"]
    assert [c.value for c in Choice] == ["play", "pass", "retorno"]
    assert [g.value for g in FoulGroup] == ["variable", "max", "disciplinary"]


def _contract_row(text: str, field: str) -> str:
    return re.search(rf"^\| `{field}` \|(.*)$", text, re.M).group(1)


def test_the_enum_values_are_those_the_contract_document_lists():
    text = CONTRACT.read_text()
    quoted = lambda s: re.findall(r'"(\w+)"', s)  # noqa: E731
    assert quoted(_contract_row(text, "phase").split("|")[0]) == list(Phase)
    assert quoted(_contract_row(text, "warning").split("|")[0]) == list(TableWarning)
    assert quoted(_contract_row(text, "match_result").split("|")[0]) == list(MatchResult)
    assert quoted(_contract_row(text, "history").split("`ended_by` is")[1]) == list(FrameEnd)
    assert quoted(_contract_row(text, "decision").split("|")[0]) == list(Choice)
    section5 = text.split("## 5.")[1].split("## 6.")[0]
    assert re.findall(r"`(\w+)` \((\d+\.\d+)", section5) == [(k.value, k.article) for k in FoulKind]
    assert re.findall(r"^\| (\w+) \(", section5, re.M) == list(FoulGroup)


def test_the_27_foul_kinds_of_contract_section_5_with_their_articles_and_groups():
    assert {k.value: (k.article, k.group.value) for k in FoulKind} == {
        "cue_ball_potted": ("47.1", "variable"), "double_hit": ("47.2", "variable"),
        "push_stroke": ("47.3", "variable"), "touching_ball": ("47.4", "variable"),
        "ball_touched": ("47.5", "variable"), "ball_moving": ("47.6", "variable"),
        "not_tip": ("47.7", "variable"), "no_foot_on_floor": ("47.8", "variable"),
        "outside_d": ("47.9", "variable"), "ball_off_table": ("47.10", "variable"),
        "jump": ("47.11", "variable"), "ball_not_on_potted": ("47.12", "variable"),
        "wrong_group_potted": ("47.13", "variable"), "ball_on_not_hit_first": ("47.14", "variable"),
        "simultaneous_hit": ("47.15", "variable"), "free_ball_snooker": ("47.16", "variable"),
        "not_nominated": ("47.17", "variable"), "other": ("47.18", "variable"),
        "out_of_sequence": ("48.1", "max"), "wrong_ball": ("48.2", "max"),
        "foul_before_nomination": ("48.3", "max"), "compulsory": ("48.4", "max"),
        "intentional": ("49.1", "disciplinary"), "intentional_jump": ("49.2", "disciplinary"),
        "misuse_of_balls": ("49.3", "disciplinary"), "slow_play": ("49.4", "disciplinary"),
        "misconduct": ("49.5", "disciplinary"),
    }
    assert FoulKind.SLOW_PLAY.label == {"pt": "Tempo excessivo", "en": "Slow play"}


def test_the_foul_kinds_export_for_forms_keeps_its_shape():
    assert [g["group"] for g in FOUL_KINDS] == ["variable", "max", "disciplinary"]
    assert FOUL_KINDS[1] == {"group": "max", "label": {"pt": "Penalidade máxima (7, Art. 41)",
                                                       "en": "Maximum penalty (7, Art. 41)"},
                             "kinds": [{"code": "out_of_sequence", "article": "48.1",
                                        "label": {"pt": "Fora da sequência", "en": "Out of sequence"}},
                                       {"code": "wrong_ball", "article": "48.2",
                                        "label": {"pt": "Bola errada", "en": "Wrong ball"}},
                                       {"code": "foul_before_nomination", "article": "48.3",
                                        "label": {"pt": "Falta antes de cantar a colorida",
                                                  "en": "Foul before nominating"}},
                                       {"code": "compulsory", "article": "48.4",
                                        "label": {"pt": "Falta compulsória (sinuca total)",
                                                  "en": "Compulsory foul (total snooker)"}}]}
    assert sum(len(g["kinds"]) for g in FOUL_KINDS) == 27
    assert all(type(k["code"]) is str for g in FOUL_KINDS for k in g["kinds"])  # plain JSON


def test_members_are_their_strings():
    assert Phase.PLAY == "play" and hash(Phase.PLAY) == hash("play") and f"{Phase.PLAY}" == "play"
    assert {"decision": 1}[Phase.DECISION] == 1
    assert json.dumps({"phase": Phase.MATCH_OVER, "kind": FoulKind.JUMP}) == '{"phase": "match_over", "kind": "jump"}'
    assert FoulKind("wrong_ball") is FoulKind.WRONG_BALL
    with pytest.raises(ValueError):
        FoulKind("kick")


def test_every_member_has_a_docstring():
    tree = ast.parse((ROOT / "sinuca" / "vocab.py").read_text())
    classes = {c.name: c for c in tree.body if isinstance(c, ast.ClassDef)}
    for enum in VOCABULARY:
        body = classes[enum.__name__].body
        for i, node in enumerate(body):
            if isinstance(node, ast.Assign) and node.targets[0].id in enum.__members__:
                doc = body[i + 1] if i + 1 < len(body) else None
                assert isinstance(doc, ast.Expr) and isinstance(doc.value.value, str), \
                    f"{enum.__name__}.{node.targets[0].id}"
        assert enum.__doc__


def test_the_state_holds_the_enums():
    m = new_match()
    run(m, FOUL(snooker=True, retorno=True))
    s = m.state()
    assert s["phase"] is Phase.DECISION
    assert s["decision_options"] == ["play", "pass", "retorno"]
    assert [type(c) for c in s["decision_options"]] == [Choice] * 3
    s = run(position(reds=0, colours=(7,), scores=(30, 27)), FOUL())
    assert (s["match_result"], s["history"][0]["ended_by"]) == (MatchResult.FRAMES, FrameEnd.FOUL)
    assert s["history"][0]["ended_by"] is FrameEnd.FOUL


# --- the articles are the rules text's --------------------------------------------------------

def _rules_items() -> dict[int, dict[int, str]]:
    """Article -> {item number: text} of the top-level items of the rules text."""
    arts: dict[int, dict[int, str]] = {}
    current = None
    for line in RULES.read_text().splitlines():
        m = re.match(r"Artigo (\d+)º?\s+–\s*(.*)", line)
        if m:
            current = arts.setdefault(int(m.group(1)), {0: m.group(2)})
            continue
        m = re.match(r"( {0,2})(\d+)\.\s+(.*)", line)
        if m and current is not None:
            current.setdefault(int(m.group(2)), m.group(3))
    return arts


def test_the_rules_text_is_there():
    assert RULES.is_file(), RULES  # fail, never skip: the article checks below read it

# A phrase of each kind's item in Art. 47-49 of the rules text.
KIND_WORDS = {
    "cue_ball_potted": "encaçapar a bola tacadeira", "double_hit": "bitoque", "push_stroke": "carretão",
    "touching_ball": "bola colada", "ball_touched": "tocar indevidamente", "ball_moving": "em movimento",
    "not_tip": "ponteira", "no_foot_on_floor": "piso", "outside_d": "semicírculo",
    "ball_off_table": "para fora da mesa", "jump": "salto da tacadeira", "ball_not_on_potted": "bola não visada",
    "wrong_group_potted": "bola da vez ao jogar colorida", "ball_on_not_hit_first": "não atingir primeiramente",
    "simultaneous_hit": "tocar simultaneamente", "free_ball_snooker": "bola livre jogada",
    "not_nominated": "deixar de cantar", "other": "outras faltas", "out_of_sequence": "fora da seqüência",
    "wrong_ball": "bola errada", "foul_before_nomination": "antes de cantar", "compulsory": "compulsória",
    "intentional": "cometer falta intencionalmente", "intentional_jump": "salto de bola intencionalmente",
    "misuse_of_balls": "usar bolas", "slow_play": "tempo excessivo", "misconduct": "outras ações",
}


@pytest.mark.parametrize("kind", list(FoulKind), ids=[k.value for k in FoulKind])
def test_each_foul_kind_cites_its_item_of_the_rules_text(kind):
    art, item = map(int, kind.article.split("."))
    assert KIND_WORDS[kind.value] in _rules_items()[art][item]


def test_the_groups_cite_the_articles_that_set_their_penalty():
    arts = _rules_items()
    assert "penalidade variável" in arts[40][0] and "quatro (4)" in arts[40][1]
    assert "penalidade máxima" in arts[41][0] and "sete (7)" in arts[41][1]
    assert "falta disciplinar" in arts[42][0] and "advertência" in arts[42][1]
    assert [FoulGroup.VARIABLE.article, FoulGroup.MAX.article, FoulGroup.DISCIPLINARY.article] == ["40", "41", "42"]
    assert "desclassificação" in arts[42][2] and "desclassificação" in arts[43][1]


def test_every_article_the_vocabulary_cites_is_in_the_rules_text():
    arts = _rules_items()
    for enum in VOCABULARY:
        for member in enum:
            for cite in (member.article or "").split(","):
                if not cite.strip():
                    continue
                n, _, item = cite.strip().partition(".")
                assert int(n) in arts, (member, cite)
                assert not item or int(item.split(".")[0]) in arts[int(n)], (member, cite)


def test_frame_and_match_ends_cite_the_right_articles():
    arts = _rules_items()
    assert "bola 7" in arts[50][1] and FrameEnd.POT.article == "50.1"
    assert "reconhece a derrota na partida" in arts[50][2] and FrameEnd.CONCESSION.article == "50.2"
    assert "qualquer falta determina a derrota" in arts[51][2] and FrameEnd.FOUL.article == "51"
    assert "partida complementar" in arts[52][0] and FrameEnd.DECIDER.article == "52"
    assert "mínimo predeterminado de vitórias" in arts[54][1] and MatchResult.FRAMES.article == "54.1"
    assert "reconhece derrota no jogo" in arts[54][2] and MatchResult.CONCESSION.article == "54.2"
    assert "Ambos" in arts[55][0] and MatchResult.BOTH_DISQUALIFIED.article == "55"


# --- names and labels -------------------------------------------------------------------------

def test_ball_names():
    assert [ball_name(b) for b in range(1, 8)] == ["vermelha", "amarela", "verde", "marrom", "azul", "rosa", "preta"]
    assert [ball_name(b, "en") for b in range(1, 8)] == ["red", "yellow", "green", "brown", "blue", "pink", "black"]
    with pytest.raises(KeyError):
        ball_name(8)


def test_frame_end_and_match_result_texts():
    assert [frame_end_text(e)["pt"] for e in FrameEnd] == [
        "bola encaçapada (Art. 50.1)", "falta com só a 7 na mesa (Art. 51)", "3ª falta agravada (Art. 27)",
        "partida complementar (Art. 52)", "desistência da partida (Art. 50.2)"]
    assert frame_end_text("aggravated")["en"] == "third aggravated foul (Art. 27)"
    assert [match_result_text(r)["pt"] for r in MatchResult] == [
        "por partidas (Art. 54.1)", "por desistência (Art. 54.2)", "por desclassificação (Art. 54.3, 54.4)",
        "ambos desclassificados (Art. 55)"]
    assert match_result_text(None) == {"pt": "em andamento", "en": "in progress"}
    assert Sanction.WARNING.label == {"pt": "advertência", "en": "warning"}
    with pytest.raises(ValueError):
        frame_end_text("nonsense")


# --- the message catalogue --------------------------------------------------------------------

def _fields(template: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


@pytest.mark.parametrize("msg_id", sorted(MESSAGES))
def test_every_message_renders_in_both_languages_as_an_error_of_its_code(msg_id):
    pt, en = MESSAGES[msg_id]
    assert _fields(pt) == _fields(en)
    params = {f.split("!")[0]: 3 for f in _fields(pt)}
    e = error(msg_id, **params)
    assert e.code == msg_id.split(".")[0] and e.msg_id == msg_id and e.params == params
    assert "{" not in e.message_pt + e.message_en and e.message == f"{e.message_pt} / {e.message_en}"
    assert e.as_dict() == {"code": e.code, "message": e.message}


def test_every_message_id_the_engine_raises_is_in_the_catalogue():
    ids = set()
    for f in (ROOT / "sinuca").glob("*.py"):
        ids |= set(re.findall(r'(?:error|texts)\("([a-z_]+\.[a-z_]+)"', f.read_text()))
        ids |= set(re.findall(r'return "([a-z_]+\.[a-z_]+)", \{', f.read_text()))
    assert len(ids) >= 45 and ids <= set(MESSAGES), ids - set(MESSAGES)


def test_an_error_keeps_its_message_id_and_parameters():
    with pytest.raises(IllegalPot) as e:
        new_match().apply(POT(3))
    assert (e.value.msg_id, e.value.params) == ("illegal_pot.not_on", {"ball_on": "1"})
    assert e.value.message_pt == "Encaçapada ilegal: a bola da vez é 1; registre uma falta (Art. 11, 47.12)"
    assert texts(e.value.msg_id, **e.value.params)["en"] == e.value.message_en
    m = position(reds=0, colours=(5, 6, 7), scores=(50, 20))
    with pytest.raises(RetornoNotAllowed) as e:
        m.apply(FOUL(ball=6, retorno=True))
    assert (e.value.msg_id, e.value.params) == ("retorno_not_allowed.cannot_catch_up", {"deficit": 24, "points": 18})
    assert e.value.message_en == "No replay: the beneficiary is 24 behind with only 18 points left (Art. 26.2)"


# --- what a Step tells ------------------------------------------------------------------------

def test_step_foul_of_a_disciplinary_foul_tells_the_warning_then_the_disqualification():
    m = new_match()
    f = m.apply(FOUL(kind="slow_play")).foul
    assert f == {"penalty": 7, "receiver": 1, "offender": 0, "kind": "slow_play", "article": "49.4",
                 "kind_article": "49.4", "group": "disciplinary", "sanction": "warning", "sanction_article": "42.1",
                 "retorno": False, "retorno_allowed": True, "retorno_reason": None}
    step = m.apply(FOUL(kind="misconduct", player=0))  # the seated Ana, during Bia's decision
    assert (step.foul["offender"], step.foul["receiver"], step.foul["sanction"], step.foul["sanction_article"]) == (
        0, 1, Sanction.DISQUALIFICATION, "42.2")
    assert step.foul["retorno_reason"] == {"pt": "Não há retorno para falta de quem não está jogando (Art. 25)",
                                           "en": "No replay for a foul by the player not at the table (Art. 25)"}
    assert step.match_end == {"winner": 1, "result": "disqualification", "article": "54.3", "frames": [0, 0],
                              "losers": [0], "text": {"pt": "Bia vence o jogo pela desclassificação de Ana",
                                                      "en": "Bia wins the match, Ana disqualified"}}
    assert step.frame_end is None


def test_step_foul_of_a_grave_foul_cites_art_43():
    f = new_match().apply(FOUL(kind="intentional", grave=True)).foul
    assert (f["sanction"], f["sanction_article"], f["article"]) == ("disqualification", "43", "49.1")


def test_step_foul_tells_why_retorno_could_not_be_called():
    m = position(reds=0, colours=(5, 6, 7), scores=(50, 20))
    f = m.apply(FOUL(ball=6)).foul
    assert (f["penalty"], f["article"], f["retorno"], f["retorno_allowed"]) == (6, "40", False, False)
    assert f["retorno_reason"] == {
        "pt": "Sem retorno: o beneficiado está 24 pontos atrás e só restam 18 possíveis (Art. 26.2)",
        "en": "No replay: the beneficiary is 24 behind with only 18 points left (Art. 26.2)"}
    f = new_match().apply(FOUL(kind="compulsory")).foul
    assert (f["penalty"], f["article"], f["group"], f["retorno_reason"]["en"]) == (
        7, "48.4", FoulGroup.MAX, "No replay on a compulsory foul (Art. 26.4)")
    f = new_match().apply(FOUL(retorno=True, potted=[1, 1])).foul
    assert (f["penalty"], f["retorno"], f["retorno_allowed"], f["retorno_reason"]) == (4, True, True, None)
    f = new_match(retorno=False).apply(FOUL()).foul
    assert f["retorno_reason"]["pt"] == "O regulamento do evento não concede retorno (Art. 29)"


def test_step_foul_before_nominating_cites_art_48_3():
    m = new_match()
    run(m, POT(1))
    f = m.apply(FOUL(ball=1)).foul
    assert (f["penalty"], f["article"], f["kind"], f["kind_article"]) == (7, "48.3", "other", "47.18")


def test_step_frame_end_and_match_end_of_a_foul_with_only_the_7_left():
    step = position(reds=0, colours=(7,), scores=(30, 27)).apply(FOUL())
    assert step.frame_end == {"frame": 1, "scores": [30, 34], "winner": 1, "ended_by": "foul", "article": "51",
                              "text": {"pt": "Bia vence a partida 1 por 34–30 (Art. 51)",
                                       "en": "Bia wins frame 1 34–30 (Art. 51)"}}
    assert step.match_end == {"winner": 1, "result": "frames", "article": "54.1", "frames": [0, 1], "losers": [0],
                              "text": {"pt": "Bia vence o jogo por 1–0", "en": "Bia wins the match 1–0"}}
    assert step.starts_decider is False


def test_step_tells_the_tie_that_starts_the_decider_and_the_decider_that_ends_the_frame():
    m = position(reds=0, colours=(7,), scores=(37, 30), striker=1, frames_to_win=2)
    step = m.apply(POT(7))
    assert (step.starts_decider, step.frame_end, step.match_end) == (True, None, None)
    run(m, {"type": "lot", "player": 0})
    step = m.apply(POT(7))
    assert step.frame_end == {"frame": 1, "scores": [44, 37], "winner": 0, "ended_by": "decider", "article": "52",
                              "text": {"pt": "Ana vence a partida 1 por 44–37 (partida complementar, Art. 52)",
                                       "en": "Ana wins frame 1 44–37 (decider, Art. 52)"}}
    assert step.match_end is None
    assert m.undo().frame_end is None


def test_step_frame_end_of_the_6_rule_and_the_aggravated_chain():
    m = position(reds=0, colours=(6, 7), scores=(40, 30), striker=0, frames_to_win=2)
    assert m.apply(POT(6)).frame_end["ended_by"] is FrameEnd.POT
    assert m.apply(POT(7)).frame_end is None  # the extra 7 only adds to the break
    m = position(reds=5, scores=(10, 10))
    run(m, FOUL(aggravated=True, retorno=True), {"type": "decision", "choice": "retorno"},
        FOUL(aggravated=True, retorno=True), {"type": "decision", "choice": "retorno"})
    fe = m.apply(FOUL(aggravated=True)).frame_end
    assert (fe["ended_by"], fe["article"], fe["winner"], fe["scores"]) == ("aggravated", "27", 1, [10, 22])


def test_step_match_end_of_the_referees_disqualification_and_of_a_concession():
    assert Match({"players": ["Ana", "Bia"]}).apply({"type": "disqualify", "players": [1]}).match_end == {
        "winner": 0, "result": "disqualification", "article": "54.4", "frames": [0, 0], "losers": [1],
        "text": {"pt": "Ana vence o jogo pela desclassificação de Bia", "en": "Ana wins the match, Bia disqualified"}}
    end = new_match().apply({"type": "disqualify", "players": [0, 1]}).match_end
    assert (end["winner"], end["result"], end["article"], end["losers"]) == (None, "both_disqualified", "55", [0, 1])
    end = new_match().apply({"type": "concede_match", "player": 1}).match_end
    assert (end["winner"], end["result"], end["article"], end["losers"]) == (0, "concession", "54.2", [1])


def test_options_tell_how_many_reds_a_foul_may_pot_art_15():
    m = new_match(reds=6)
    assert m.options()["max_foul_reds"] == 6
    run(m, POT(1, 1))
    assert (m.options()["max_foul_reds"], m.options()["max_reds"]) == (4, 0)
    run(m, FOUL(nominated=5, potted=[1, 1, 1, 1]))
    assert m.state()["reds_remaining"] == 0 and m.options()["max_foul_reds"] == 0  # decision pending


# --- the JSON is what it was --------------------------------------------------------------------

def test_the_demo_match_replays_to_the_recorded_json_byte_for_byte():
    doc = json.loads((ROOT / "demo" / "final.json").read_text())
    recorded = (DATA / "final.steps.jsonl").read_text().splitlines()
    m = Match(doc["config"])
    for i, ev in enumerate(doc["events"]):
        step = m.apply(ev)
        assert json.dumps(step.state, ensure_ascii=False) == recorded[2 * i], i
        assert json.dumps(step.description, ensure_ascii=False) == recorded[2 * i + 1], i
    assert len(recorded) == 2 * len(doc["events"]) == 374


def test_the_command_line_prints_the_recorded_state_of_the_demo_match():
    import subprocess
    import sys
    p = subprocess.run([sys.executable, "-m", "sinuca", "replay", str(ROOT / "demo" / "final.json")],
                       capture_output=True, cwd=ROOT, timeout=60)
    assert p.returncode == 0
    assert p.stdout == (DATA / "final.replay.json").read_bytes()


# --- style guards of the package ----------------------------------------------------------------

def test_no_function_in_the_engine_is_longer_than_60_lines():
    for f in (ROOT / "sinuca").glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.end_lineno - node.lineno < 60, f"{f.name}:{node.lineno} {node.name}"


def test_the_package_exports_the_vocabulary():
    for name in ("Phase", "FrameEnd", "MatchResult", "TableWarning", "Choice", "FoulGroup", "FoulKind", "Sanction",
                 "ball_name", "MESSAGES", "texts", "error"):
        assert name in sinuca.__all__ and getattr(sinuca, name)


def test_the_docstring_examples_of_the_new_modules_hold():
    import doctest

    import presentation.labels
    import sinuca.errors
    import sinuca.messages
    import sinuca.rules
    import sinuca.vocab
    for mod in (sinuca.vocab, sinuca.messages, sinuca.errors, sinuca.rules, presentation.labels):
        result = doctest.testmod(mod)
        assert result.failed == 0 and result.attempted >= 1, mod.__name__
