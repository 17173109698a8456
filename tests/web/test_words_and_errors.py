"""Issue 16, item 4: the server's words come from Django's catalogue (no bilingual literal in the
API, the feeds or the match files, none passed through gettext), and one mapping
(``http/errors.py``) turns every refusal of the engine and the core into its HTTP answer."""
from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest
from django.test import Client
from django.utils import translation

import sinuca.errors
from scoreboard.core import log, venue_rules

ROOT = Path(__file__).resolve().parents[2]
WORDED = ["scoreboard/api.py", "scoreboard/pages/feeds.py", "scoreboard/reports/exports.py",
          "scoreboard/pages/referee.py", "scoreboard/pages/desk.py", "scoreboard/pages/errors.py"]
GETTEXT = {"_", "gettext", "gettext_lazy", "pgettext", "ngettext"}
CATALOGUE = {"both": 0, "pair": 0, "request_error": 1, "error": 1, "_error": 1, "_bad": 0}
"""Functions that take a msgid of the catalogue, and its position among their arguments."""


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def _bilingual(node: ast.AST) -> bool:
    """A literal that holds "<pt> / <en>" (or builds one: f"{pt} / {en}")."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return " / " in node.value
    if isinstance(node, ast.JoinedStr):
        return any(_bilingual(v) for v in node.values)
    return False


@pytest.mark.parametrize("path", WORDED)
def test_no_bilingual_literal_in_the_servers_words(path):
    """Every "pt / en" text is built from the catalogue (``core.i18n.both``), not written out."""
    tree = ast.parse((ROOT / path).read_text())
    skip = _docstrings(tree)
    found = [f"{path}:{n.lineno}: {ast.unparse(n)[:70]}" for n in ast.walk(tree)
             if isinstance(n, (ast.Constant, ast.JoinedStr)) and id(n) not in skip and _bilingual(n)
             and not isinstance(getattr(n, "value", None), bytes)]
    # an f-string's parts are Constants too: report the whole string once
    assert not found, found


@pytest.mark.parametrize("path", WORDED)
def test_no_bilingual_msgid_goes_through_gettext(path):
    tree = ast.parse((ROOT / path).read_text())
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
             and n.func.id in GETTEXT and n.args and _bilingual(n.args[0])]
    assert not calls, [ast.unparse(c) for c in calls]


def _msgids() -> list[tuple[str, str]]:
    out = []
    for path in WORDED:
        for n in ast.walk(ast.parse((ROOT / path).read_text())):
            if isinstance(n, ast.Call) and isinstance(n.func, (ast.Name, ast.Attribute)):
                name = n.func.id if isinstance(n.func, ast.Name) else n.func.attr
                pos = CATALOGUE.get(name)
                if pos is not None and len(n.args) > pos:
                    arg = n.args[pos]
                    values = [arg] if isinstance(arg, ast.Constant) else \
                        [arg.body, arg.orelse] if isinstance(arg, ast.IfExp) else []
                    out += [(path, v.value) for v in values if isinstance(v, ast.Constant)]
    return out


def test_every_msgid_of_the_errors_has_its_english():
    msgids = _msgids()
    assert len(msgids) >= 40  # the API's, the feeds', the match files' and the tablet's errors
    with translation.override("en"):
        missing = [(p, m) for p, m in msgids if translation.gettext(m) == m]
    assert not missing, missing


def _engine_errors() -> list[type]:
    """Every class of refusal: the engine's (one per contract code) and the core's."""
    seen, todo = [], [sinuca.errors.SinucaError]
    while todo:
        cls = todo.pop()
        seen.append(cls)
        todo += cls.__subclasses__()
    return seen


def test_every_engine_error_code_has_one_http_answer_through_the_one_mapping():
    from scoreboard.http import errors

    classes = _engine_errors()
    codes = {c.code for c in classes}
    assert {"invalid_config", "invalid_event", "wrong_phase", "match_over", "illegal_pot",
            "illegal_free_ball", "illegal_foul", "retorno_not_allowed", "nothing_to_undo"} <= codes
    for cls in classes:
        if cls is venue_rules.OperationRefused or cls.__module__.startswith("sinuca"):
            e = cls("motivo", "reason") if cls.__module__.startswith("sinuca") else cls("table_busy", "motivo", "reason")
        else:
            continue  # built with their own arguments below
        answer = errors.refusal(e)
        assert (answer.status, answer.code, answer.message) == (422, e.code, "motivo / reason"), cls
        assert errors.status_of(e.code) == 422 and e.code not in errors.REQUEST, e.code
    conflict = errors.refusal(log.Conflict(7))
    assert (conflict.status, conflict.body()) == (409, {"error": {"code": "conflict", "message":
            "O jogo já está no evento 7; atualize e tente de novo / The match is already at event 7; "
            "refresh and try again"}, "seq": 7})
    reused = errors.refusal(log.KeyReused(3))
    assert (reused.status, reused.code) == (422, "key_reused") and errors.status_of("key_reused") == 422
    with pytest.raises(TypeError):
        errors.refusal(KeyError("not a refusal"))


def test_the_desk_and_the_tablet_get_one_language_the_api_both():
    from scoreboard.http import errors

    e = sinuca.errors.IllegalPot("Bola errada", "Wrong ball")
    with translation.override("en"):
        assert errors.refusal(e, one_language=True).message == "Wrong ball"
        assert errors.refusal(e).message == "Bola errada / Wrong ball"
    with translation.override("pt-br"):
        assert errors.refusal(e, one_language=True).message == "Bola errada"


@pytest.mark.django_db
@pytest.mark.parametrize("lang", ["pt-br", "en"])
def test_an_api_error_is_in_both_languages_whatever_the_requests(lang):
    r = Client().get("/api/matches/987654/", HTTP_ACCEPT_LANGUAGE=lang)
    assert r.status_code == 404
    assert r.json() == {"error": {"code": "not_found", "message": "Jogo não encontrado / Match not found"}}
    r = Client().get("/matches/987654/feed.json", HTTP_ACCEPT_LANGUAGE=lang)
    assert r.status_code == 404 and r.json()["error"]["message"] == \
        "Jogo ou mesa não encontrado(a) / Match or table not found"
