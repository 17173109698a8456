"""Rule areas of the CBBS 2008 text, one test per behaviour, exact values. Each names its article."""
import pytest

from sinuca import (IllegalFoul, IllegalFreeBall, IllegalPot, InvalidConfig, InvalidEvent, Match,
                    MatchIsOver, NothingToUndo, RetornoNotAllowed, SinucaError, WrongPhase)

from .conftest import new_match, position, run

POT = lambda *b, **kw: {"type": "pot", "balls": list(b), **kw}  # noqa: E731
MISS = {"type": "no_pot"}
FOUL = lambda **kw: {"type": "foul", **kw}  # noqa: E731
PLAY = {"type": "decision", "choice": "play"}
PASS = {"type": "decision", "choice": "pass"}
RETORNO = {"type": "decision", "choice": "retorno"}


# --- configuration (section 2, Art. 1, 17, 54.1) ------------------------------------------

@pytest.mark.parametrize("config", [
    {"players": ["Ana", "Bia"], "reds": 8},
    {"players": ["Ana", "Bia"], "reds": True},
    {"players": ["Ana", "Bia"], "frames_to_win": 0},
    {"players": ["Ana"]},
    {"players": ["Ana", ""]},
    {},
    {"players": ["Ana", "Bia"], "first_breaker": 2},
    {"players": ["Ana", "Bia"], "retorno": "yes"},
    {"players": ["Ana", "Bia"], "colour": "red"},
    {"players": ["Ana", "Bia"], "position": {"reds_remaining": 3, "colours_remaining": [3, 4, 5, 6, 7],
                                             "scores": [0, 0], "striker": 0}},
    {"players": ["Ana", "Bia"], "position": {"reds_remaining": 0, "colours_remaining": [5, 7],
                                             "scores": [0, 0], "striker": 0}},
    {"players": ["Ana", "Bia"], "position": {"reds_remaining": 0, "colours_remaining": [7],
                                             "scores": [0, 0]}},
    {"players": ["Ana", "Bia"], "position": {"reds_remaining": 16, "scores": [0, 0], "striker": 0}},
    {"players": ["Ana", "Bia"], "frames_to_win": 2,
     "position": {"reds_remaining": 0, "colours_remaining": [7], "scores": [0, 0], "striker": 0,
                  "frames": [2, 0]}},
    ["Ana", "Bia"],
])
def test_it_rejects_a_bad_configuration(config):
    with pytest.raises(InvalidConfig) as e:
        Match(config)
    assert e.value.code == "invalid_config"
    assert " / " in e.value.message


def test_without_a_first_breaker_the_match_starts_with_the_lot_art_17():
    m = Match({"players": ["Ana", "Bia"]})
    s = m.state()
    assert (s["phase"], s["striker"], s["breaker"], s["points_remaining"], s["ball_on"]) == ("lot", None, None, 0, [])
    s = run(m, {"type": "lot", "player": 1})
    assert (s["phase"], s["striker"], s["breaker"], s["points_remaining"]) == ("play", 1, 1, 147)


@pytest.mark.parametrize("reds,total", [(6, 75), (10, 107), (15, 147)])
def test_a_full_rack_offers_the_art_6_totals(reds, total):
    assert new_match(reds=reds).state()["points_remaining"] == total


# --- ball on and pots (Art. 11-14) ----------------------------------------------------------

def test_a_red_then_any_colour_then_a_red_art_11():
    m = new_match()
    assert run(m, POT(1))["ball_on"] == [2, 3, 4, 5, 6, 7]
    s = run(m, POT(4))
    assert (s["ball_on"], s["scores"], s["break"], s["colours_remaining"]) == ([1], [5, 0], 5, [2, 3, 4, 5, 6, 7])


def test_three_reds_in_one_stroke_score_three_art_14():
    s = run(new_match(), POT(1, 1, 1))
    assert (s["scores"], s["reds_remaining"], s["points_remaining"]) == ([3, 0], 12, 7 + 8 * 12 + 27)


@pytest.mark.parametrize("events,bad", [
    ([], POT(2)),                    # a colour with red on
    ([POT(1)], POT(1)),              # a red when a colour is on
    ([POT(1)], POT(2, 3)),           # two colours after a red
    ([POT(1)], POT(5, nominated=6)),  # not the nominated colour (Art. 19)
])
def test_illegal_pots_are_refused_art_11_47(events, bad):
    m = new_match()
    run(m, *events)
    before = m.state()
    with pytest.raises(IllegalPot):
        m.apply(bad)
    assert m.state() == before


def test_more_reds_than_the_table_holds_is_refused():
    m = position(reds=1, colours=(2, 3, 4, 5, 6, 7))
    with pytest.raises(IllegalPot):
        m.apply(POT(1, 1))


def test_colours_in_sequence_stay_off_art_12_2():
    m = position(reds=0, colours=(2, 3, 4, 5, 6, 7))
    s = run(m, POT(2), POT(3))
    assert (s["colours_remaining"], s["ball_on"], s["points_remaining"], s["scores"]) == ([4, 5, 6, 7], [4], 22, [5, 0])
    with pytest.raises(IllegalPot):
        m.apply(POT(5))


def test_the_black_ends_the_frame_for_the_leader_art_50_1():
    s = run(position(reds=0, colours=(7,), scores=(10, 30), striker=0), POT(7))
    assert (s["phase"], s["frame_winner"], s["scores"], s["history"][-1]["ended_by"]) == ("match_over", 1, [17, 30], "pot")


# --- fouls (Art. 40, 41, 45, 48) ------------------------------------------------------------

@pytest.mark.parametrize("setup,foul,penalty", [
    ([], FOUL(), 4),                                      # red on: min 4 (Art. 40)
    ([], FOUL(ball=7), 7),                                # highest ball involved (Art. 45)
    ([], FOUL(kind="out_of_sequence"), 7),                # Art. 48.1
    ([], FOUL(kind="compulsory"), 7),                     # Art. 48.4
    ([POT(1)], FOUL(nominated=2), 4),                     # nominated 2: still min 4
    ([POT(1)], FOUL(nominated=5, ball=1), 5),             # nominated colour (Art. 40.1.a)
    ([POT(1)], FOUL(), 7),                                # no nomination (Art. 48.3)
    ([POT(1)], FOUL(kind="foul_before_nomination"), 7),   # Art. 48.3
])
def test_the_penalty_art_40_41_45_48(setup, foul, penalty):
    m = new_match()
    run(m, *setup)
    before = m.state()["scores"][1]
    s = run(m, foul)
    assert s["scores"][1] - before == penalty
    assert s["last_penalty"] == {"player": 1, "points": penalty}


@pytest.mark.parametrize("on,penalty", [(2, 4), (3, 4), (4, 4), (5, 5), (6, 6), (7, 7)])
def test_the_penalty_with_colour_n_on_is_at_least_n_art_40(on, penalty):
    m = position(reds=0, colours=range(on, 8), scores=(0, 0))
    assert run(m, FOUL())["scores"] == ([0, penalty] if on < 7 else [0, 7])


def test_a_foul_on_a_free_ball_stroke_is_valued_as_the_ball_on_art_4():
    m = new_match()
    run(m, FOUL(snooker=True), PLAY)
    s = run(m, FOUL(free_ball=6))  # contract 6: the aimed value is the ball on's (1), so min 4
    assert s["scores"] == [4, 4]


def test_reds_potted_in_a_foul_stay_off_colours_come_back_art_12_3_15():
    s = run(new_match(), FOUL(potted=[1, 1, 5], ball=5))
    assert (s["reds_remaining"], s["colours_remaining"], s["scores"]) == (13, [2, 3, 4, 5, 6, 7], [0, 5])


def test_a_foul_with_a_ball_that_is_not_on_the_table_is_refused():
    m = position(reds=0, colours=(5, 6, 7))
    with pytest.raises(IllegalFoul):
        m.apply(FOUL(ball=2))
    with pytest.raises(IllegalFoul):
        m.apply(FOUL(potted=[1]))


def test_after_a_foul_the_beneficiary_decides_art_35():
    m = new_match()
    s = run(m, POT(1), POT(7), FOUL(ball=1))
    assert (s["phase"], s["striker"], s["decision_options"], s["ball_on"], s["break"]) == ("decision", 1, ["play", "pass"], [], 0)
    assert s["highest_break"] == [8, 0]


def test_play_gives_the_table_and_a_free_ball_after_a_snooker_art_36():
    s = run(new_match(), FOUL(snooker=True), PLAY)
    assert (s["striker"], s["free_ball"], s["ball_on"]) == (1, True, [1])


def test_pass_makes_the_offender_play_art_35_4():
    s = run(new_match(), FOUL(snooker=True), PASS)
    assert (s["striker"], s["free_ball"], s["phase"]) == (0, False, "play")


# --- free ball (Art. 4, 14, 36-38) ----------------------------------------------------------

def test_free_ball_with_reds_scores_one_each_art_14_37_1():
    s = run(new_match(), FOUL(snooker=True), PLAY, POT(1, 6, free_ball=6))
    assert (s["scores"], s["reds_remaining"], s["ball_on"], s["colours_remaining"]) == ([0, 6], 14, [2, 3, 4, 5, 6, 7], [2, 3, 4, 5, 6, 7])


def test_free_ball_is_refused_without_a_foul_that_left_a_snooker_art_36():
    m = new_match()
    with pytest.raises(IllegalFreeBall):
        m.apply(POT(5, free_ball=5))
    run(m, FOUL(), PLAY)
    with pytest.raises(IllegalFreeBall):
        m.apply(POT(5, free_ball=5))


def test_the_ball_on_cannot_be_the_free_ball_art_4():
    m = position(reds=0, colours=(3, 4, 5, 6, 7))
    run(m, FOUL(snooker=True), PLAY)
    with pytest.raises(IllegalFreeBall):
        m.apply(POT(3, free_ball=3))
    assert m.options()["free_ball"] == [4, 5, 6, 7]


def test_the_free_ball_lasts_one_stroke_art_36():
    m = new_match()
    s = run(m, FOUL(snooker=True), PLAY, MISS)
    assert s["free_ball"] is False
    assert run(m, FOUL(snooker=True), PLAY, POT(1))["free_ball"] is False


def test_free_ball_snooker_is_a_variable_foul_art_47_16():
    m = position(reds=0, colours=(4, 5, 6, 7))
    run(m, FOUL(snooker=True), PLAY)
    s = run(m, FOUL(kind="free_ball_snooker", free_ball=6, ball=6))
    assert s["scores"] == [6, 4]


def test_free_ball_snooker_needs_a_free_ball_stroke():
    with pytest.raises(IllegalFoul):
        new_match().apply(FOUL(kind="free_ball_snooker"))


def test_free_ball_then_the_6_for_good_can_end_the_frame_art_50_1():
    m = position(reds=0, colours=(6, 7), scores=(40, 30), striker=0)
    run(m, FOUL(snooker=True, ball=6), PLAY)  # Bia 36, Ana 40
    s = run(m, POT(7, 6, free_ball=7))  # scores only the 6: 42 v 40
    assert (s["scores"], s["phase"], s["colours_remaining"]) == ([40, 42], "play", [7])


# --- retorno (Art. 25-30) -------------------------------------------------------------------

def test_retorno_restores_the_colour_on_after_a_red():
    m = new_match()
    run(m, POT(1), FOUL(nominated=6, retorno=True))
    s = run(m, RETORNO)
    assert (s["striker"], s["ball_on"], s["scores"], s["break"], s["reds_remaining"]) == (0, [2, 3, 4, 5, 6, 7], [1, 6], 0, 14)


def test_retorno_restores_the_free_ball():
    m = new_match()
    run(m, FOUL(snooker=True), PLAY, FOUL(free_ball=5, retorno=True))
    s = run(m, RETORNO)
    assert (s["striker"], s["free_ball"], s["scores"]) == (1, True, [4, 4])


def test_retorno_cannot_be_chosen_unless_called_art_25_1():
    m = new_match()
    run(m, FOUL())
    with pytest.raises(RetornoNotAllowed):
        m.apply(RETORNO)


def test_retorno_counts_the_free_ball_bonus_art_26_2_and_7():
    # Ana 50, Bia 20, colours 5-7 (18 left). A 5-point foul: Bia 25, behind by 25.
    # With a snooker the bonus is the ball on's value (5): 18 + 5 = 23 < 25, still refused.
    m = position(reds=0, colours=(5, 6, 7), scores=(50, 20))
    with pytest.raises(RetornoNotAllowed):
        m.apply(FOUL(retorno=True, snooker=True))
    # Ana 45: Bia behind by 20 after the penalty: 18 + 5 covers it.
    m = position(reds=0, colours=(5, 6, 7), scores=(45, 20))
    assert run(m, FOUL(retorno=True, snooker=True))["decision_options"] == ["play", "pass", "retorno"]
    m = position(reds=0, colours=(5, 6, 7), scores=(45, 20))
    with pytest.raises(RetornoNotAllowed):
        m.apply(FOUL(retorno=True))


def test_the_aggravated_chain_ends_on_play():
    m = position(reds=5, scores=(10, 10))
    run(m, FOUL(aggravated=True, retorno=True), RETORNO, FOUL(aggravated=True, retorno=True))
    s = run(m, PLAY)
    assert (s["aggravated_fouls"], s["warning"]) == (0, None)


def test_a_plain_foul_breaks_the_aggravated_sequence_art_44_2():
    m = position(reds=5, scores=(10, 10))
    s = run(m, FOUL(aggravated=True, retorno=True), RETORNO, FOUL(retorno=True), RETORNO,
            FOUL(aggravated=True, retorno=True))
    assert (s["phase"], s["aggravated_fouls"]) == ("decision", 1)


def test_foul_preview_shows_penalty_and_retorno():
    m = position(reds=0, colours=(5, 6, 7), scores=(50, 20))
    p = m.foul_preview({"ball": 6, "retorno": True})
    assert (p["penalty"], p["receiver"], p["article"], p["retorno_allowed"]) == (6, 1, "40", False)
    assert "26.2" in p["retorno_reason"]["pt"] and "26.2" in p["retorno_reason"]["en"]
    assert p["error"]["code"] == "retorno_not_allowed"
    assert m.state()["scores"] == [50, 20]
    p = new_match().foul_preview({"ball": 1, "retorno": True})
    assert (p["penalty"], p["retorno_allowed"], p["error"], p["state"]["phase"]) == (4, True, None, "decision")


# --- only the 7, decider (Art. 51, 52, 18) --------------------------------------------------

def test_a_foul_by_the_leader_at_exactly_7_goes_to_the_decider_art_51_1():
    s = run(position(reds=0, colours=(7,), scores=(44, 37), striker=0), FOUL())
    assert (s["phase"], s["decider"], s["scores"], s["points_remaining"]) == ("lot", True, [44, 44], 0)
    s = run(position(reds=0, colours=(7,), scores=(44, 37), striker=0), FOUL(), {"type": "lot", "player": 0})
    assert (s["phase"], s["striker"], s["ball_on"], s["points_remaining"], s["breaker"]) == ("play", 0, [7], 7, 0)


def test_a_foul_by_the_trailer_at_exactly_7_loses_the_frame_contract_51():
    s = run(position(reds=0, colours=(7,), scores=(30, 37), striker=0), FOUL())
    assert (s["frame_winner"], s["scores"], s["history"][-1]["ended_by"]) == (1, [30, 44], "foul")


def test_a_foul_in_the_decider_loses_it_art_52():
    m = position(reds=0, colours=(7,), scores=(37, 30), striker=1, frames_to_win=2)
    s = run(m, POT(7), {"type": "lot", "player": 1}, FOUL())
    assert (s["phase"], s["frame_winner"], s["scores"], s["decider"]) == ("frame_over", 0, [44, 37], True)
    assert s["history"][-1] == {"frame": 1, "scores": [44, 37], "winner": 0, "ended_by": "decider"}


def test_the_decider_black_wins_it_art_52():
    m = position(reds=0, colours=(7,), scores=(37, 30), striker=1, frames_to_win=2)
    s = run(m, POT(7), {"type": "lot", "player": 0}, MISS, POT(7))
    assert s["history"][-1] == {"frame": 1, "scores": [37, 44], "winner": 1, "ended_by": "decider"}
    s = run(m, {"type": "next_frame"})
    assert (s["frame_number"], s["decider"], s["breaker"]) == (2, False, 0)


def test_break_offs_alternate_and_the_decider_does_not_change_them_art_17_18():
    m = new_match(frames_to_win=3)
    for expected in (1, 0, 1, 0):
        s = run(m, {"type": "concede", "player": expected}, {"type": "next_frame"})
        assert s["breaker"] == expected or s["phase"] == "match_over"


# --- the 6 and the 7 (Art. 50.1 vs 6.1) ------------------------------------------------------

def test_after_the_6_ends_the_frame_the_7_may_still_be_potted():
    m = position(reds=0, colours=(6, 7), scores=(40, 30), striker=0, frames_to_win=2)
    s = run(m, POT(6))
    assert (s["phase"], s["ball_on"], s["points_remaining"]) == ("frame_over", [7], 0)
    s = run(m, POT(7))
    assert (s["scores"], s["break"], s["ball_on"], s["phase"], s["frames"]) == ([53, 30], 13, [], "frame_over", [1, 0])
    assert s["history"][-1]["scores"] == [53, 30]
    with pytest.raises(WrongPhase):
        m.apply(POT(7))


def test_the_extra_7_is_gone_after_another_event():
    m = position(reds=0, colours=(6, 7), scores=(40, 30), striker=0, frames_to_win=2)
    run(m, POT(6), {"type": "next_frame"})
    with pytest.raises(IllegalPot):
        m.apply(POT(7))


# --- discipline, concession, disqualification (Art. 42, 43, 50.2, 54, 55) ---------------------

def test_a_grave_foul_disqualifies_at_once_art_43():
    s = run(new_match(frames_to_win=3), FOUL(kind="misconduct", grave=True))
    assert (s["phase"], s["match_winner"], s["match_result"], s["warnings"], s["scores"]) == ("match_over", 1, "disqualification", [1, 0], [0, 7])


def test_grave_needs_a_disciplinary_kind():
    with pytest.raises(IllegalFoul):
        new_match().apply(FOUL(grave=True))


def test_only_disciplinary_fouls_can_be_by_the_seated_player():
    with pytest.raises(IllegalFoul):
        new_match().apply(FOUL(player=1))


def test_a_seated_players_disciplinary_foul_during_a_decision():
    m = new_match()
    s = run(m, FOUL(), FOUL(player=0, kind="slow_play"))
    assert (s["phase"], s["striker"], s["scores"], s["warnings"]) == ("decision", 1, [0, 11], [1, 0])
    with pytest.raises(WrongPhase):
        m.apply(FOUL())


def test_concede_match_ends_it_without_a_history_row_art_54_2():
    s = run(new_match(frames_to_win=3), POT(1), {"type": "concede_match", "player": 0})
    assert (s["phase"], s["match_winner"], s["match_result"], s["history"], s["frames"]) == ("match_over", 1, "concession", [], [0, 0])


def test_after_the_match_only_undo_art_54():
    m = new_match()
    run(m, {"type": "disqualify", "players": [1]})
    for ev in (POT(1), {"type": "next_frame"}, {"type": "concede_match", "player": 0}):
        with pytest.raises(MatchIsOver):
            m.apply(ev)
    assert run(m, {"type": "undo"})["phase"] == "play"


# --- events and errors (section 3, 8) ---------------------------------------------------------

@pytest.mark.parametrize("ev", [
    {"type": "smash"}, {}, "pot", {"type": "pot"}, {"type": "pot", "balls": []}, {"type": "pot", "balls": [8]},
    {"type": "pot", "balls": [True]}, {"type": "pot", "balls": [1], "colour": 2},
    {"type": "foul", "kind": "kick"}, {"type": "foul", "retorno": 1}, {"type": "decision", "choice": "maybe"},
    {"type": "concede"}, {"type": "disqualify", "players": [2]}, {"type": "disqualify", "players": []},
])
def test_malformed_events_are_invalid_and_change_nothing(ev):
    m = new_match()
    before = m.state()
    with pytest.raises(InvalidEvent) as e:
        m.apply(ev)
    assert e.value.code == "invalid_event" and isinstance(e.value, ValueError)
    assert m.state() == before


def test_wrong_phase():
    m = new_match()
    for ev in ({"type": "decision", "choice": "play"}, {"type": "next_frame"}, {"type": "lot", "player": 0}):
        with pytest.raises(WrongPhase):
            m.apply(ev)


def test_undo_is_exact_and_stops_at_the_start():
    m = new_match()
    s0 = m.state()
    run(m, POT(1), POT(7), FOUL())
    assert run(m, {"type": "undo"}, {"type": "undo"}, {"type": "undo"}) == s0
    with pytest.raises(NothingToUndo):
        m.undo()


def test_errors_are_value_errors_with_bilingual_messages_citing_the_article():
    try:
        new_match().apply(POT(3))
    except SinucaError as e:
        assert isinstance(e, ValueError)
        assert "Art." in e.message_pt and "Art." in e.message_en and e.code == "illegal_pot"


# --- descriptions -----------------------------------------------------------------------------

def test_descriptions_in_both_languages():
    m = new_match()
    d = m.apply(FOUL(ball=5)).description
    assert d == {"pt": "Falta de Ana: 5 pontos para Bia (Art. 40)", "en": "Foul by Ana: 5 points to Bia (Art. 40)"}
    assert m.apply(PLAY).description["pt"] == "Bia joga (Art. 35.3)"
    assert m.apply(POT(1)).description["en"] == "Bia pots a red: +1, break 1"
    d = run(position(reds=0, colours=(7,), scores=(30, 27)), ) and None
    m = position(reds=0, colours=(7,), scores=(30, 27))
    d = m.apply(FOUL()).description
    assert d["pt"].endswith("Bia vence a partida 1 por 34–30 (Art. 51) — Bia vence o jogo por 1–0")


def test_options_enable_only_legal_balls():
    m = new_match()
    o = m.options()
    assert (o["pot"], o["max_reds"], o["free_ball"]) == ([1], 15, [])
    assert "undo" not in o["events"] and "pot" in o["events"]
    run(m, POT(1))
    o = m.options()
    assert (o["pot"], o["max_reds"]) == ([2, 3, 4, 5, 6, 7], 0)
    run(m, FOUL(nominated=2))
    assert m.options()["events"][:2] == ["decision", "foul"]


def test_free_ball_descriptions_name_the_free_ball_once():
    m = new_match()
    run(m, FOUL(snooker=True), PLAY)
    d = m.apply(POT(1, 3, free_ball=3)).description
    assert d["pt"] == "Bia encaçapa uma vermelha e a verde (3) como bola livre (Art. 37): +2, tacada 2"
    assert d["en"] == "Bia pots a red and the green (3) as free ball (Art. 37): +2, break 2"


def test_the_docstring_examples_hold():
    import doctest

    import presentation.explain
    import sinuca
    import sinuca.engine
    for mod in (sinuca, sinuca.engine, presentation.explain):
        assert doctest.testmod(mod).failed == 0


def test_a_ball_potted_in_the_foul_is_involved_in_it_art_40_1_b_45():
    assert run(new_match(), FOUL(potted=[7]))["scores"] == [0, 7]
    assert run(position(reds=0, colours=(4, 5, 6, 7)), FOUL(potted=[6]))["scores"] == [0, 6]


def test_a_free_ball_not_on_the_table_is_an_illegal_free_ball():
    m = position(reds=0, colours=(5, 6, 7))
    run(m, FOUL(snooker=True), PLAY)
    with pytest.raises(IllegalFreeBall):
        m.apply(POT(3, free_ball=3))


def test_wrong_phase_messages_cite_the_article_in_both_languages():
    with pytest.raises(WrongPhase) as e:
        new_match().apply({"type": "next_frame"})
    assert e.value.message_pt == "'next_frame' não é permitido agora (em jogo) (Art. 16, 17)"
    assert e.value.message_en == "'next_frame' is not allowed now (in play) (Art. 16, 17)"


def test_the_match_result_is_named_in_the_description():
    d = new_match().apply({"type": "disqualify", "players": [0]}).description
    assert d["pt"] == "Desclassificação de Ana (Art. 54.4) — Bia vence o jogo pela desclassificação de Ana"
    d = new_match().apply({"type": "concede_match", "player": 1}).description
    assert d["en"] == "Bia concedes the match (Art. 54.2) — Ana wins the match, Bia conceded"


def test_the_tying_black_describes_the_break_it_made():
    m = position(reds=0, colours=(7,), scores=(37, 30), striker=1)
    assert m.apply(POT(7)).description["en"] == \
        "Bia pots the black (7): +7, break 7 — tie: decider on the re-spotted 7 (Art. 52)"


def test_options_tell_a_free_ball_is_offered_and_a_retorno_is_being_replayed():
    m = new_match()
    run(m, FOUL(snooker=True, retorno=True))
    o = m.options()
    assert (o["free_ball_offered"], o["retorno_replay"]) == (True, False)
    run(m, RETORNO)
    o = m.options()
    assert (o["free_ball_offered"], o["retorno_replay"]) == (False, True)
    run(m, {"type": "stalemate_warning"})
    assert m.options()["retorno_replay"] is True
    run(m, MISS)
    assert m.options()["retorno_replay"] is False


def test_a_step_tells_the_foul_it_recorded():
    m = new_match()
    assert m.apply(POT(1)).foul is None
    assert m.apply(FOUL(nominated=5, kind="ball_on_not_hit_first")).foul == {
        "penalty": 5, "receiver": 1, "offender": 0, "kind": "ball_on_not_hit_first", "article": "40",
        "kind_article": "47.14", "group": "variable", "sanction": None, "sanction_article": None,
        "retorno": False, "retorno_allowed": True, "retorno_reason": None}
