"""Every article the product cites is in the rules text, on the subject it is cited for.

Two walks: every "Art. N" / "Art. N.M" written in ``sinuca/``, ``presentation/``,
``scoreboard/reports/``, ``templates/`` and ``docs/`` (and the scenarios' ``articles``), and every
citation the engine produces (the vocabulary's articles, the message catalogue, the lines it
writes for every event of every scenario). Each must be an article or item of
``sinuca/rulebook.py`` whose words carry its subject's keyword below; a citation the table does
not know fails too, so a new one is read against the text before it lands."""
from __future__ import annotations

import json
import pathlib
import re

import pytest

from sinuca import Match, messages
from sinuca.rulebook import citations, load
from sinuca.vocab import Choice, FoulGroup, FoulKind, FrameEnd, MatchResult, Sanction, TableWarning

from .test_vocabulary import KIND_WORDS

ROOT = pathlib.Path(__file__).resolve().parents[2]
WHERE = ["sinuca", "presentation", "scoreboard/reports", "templates", "docs"]
SCENARIOS = ROOT / "tests" / "scenarios"

# Each citation -> a phrase of the rules text on the subject it is cited for. An article's words
# are its sentence and all its items; an item's, its text after those of the items it sits under.
SUBJECT = {
    "1": "bolas", "1.2.1": "seis, dez ou quinze vermelhas", "2": "seqüência ordenada crescente",
    "3": "bola da vez", "4": "bola livre", "5": "ataque ou defesa", "6": "atingir na partida",
    "6.1": "tacada contínua", "6.1.3": "147 pontos", "6.2": "jogadas normais", "6.2.5": "bola 2, 27 pontos",
    "6.2.7": "mais 8 pontos", "7": "oito (8) pontos adicionais", "8": "situação de sinuca",
    "9": "não são consideradas obstáculo", "10": "opção adicional", "11": "bola da vez",
    "11.1": "qualquer bola colorida", "11.2": "seqüência numérica crescente", "12": "retorno de bolas",
    "12.1": "após vermelha retorna", "12.2": "não retornam", "12.3": "exceto vermelhas",
    "12.4": "última vermelha", "13": "simultaneamente", "14": "um (1) ponto", "15": "vermelha não retorna",
    "16": "saída", "17": "sorteio", "18": "partida complementar", "19": "cantada prévia",
    "20": "desnecessário cantar", "21": "qualquer caçapa", "22": "colada", "23": "bola colada",
    "24": "colada", "25": "falta e retorno", "25.1": "falta e retorno", "25.2": "pode optar",
    "25.4": "passar a tacada", "25.5": "requerer a repetição", "25.5.2": "retornam às posições originais",
    "26": "repetição de jogada não é concedida", "26.1": "somente a tacadeira e a bola 7",
    "26.2": "desvantagem no placar", "26.4": "compulsória", "27": "segunda repetição seqüencial",
    "28": "sinuca agravada", "29": "regulamento de certame", "30": "vermelha convertida",
    "31": "sua marca", "32": "marcas", "33": "invertendo a direção", "34": "maior valor",
    "35": "Após qualquer falta", "35.1": "creditado ao oponente", "35.3": "jogar normalmente",
    "35.4": "recusar a ação", "35.5": "repetição da tacada", "36": "bola livre",
    "36.2": "eleger uma colorida", "37": "bola livre", "37.1": "bola da vez é vermelha",
    "37.2": "tacada continua na bola da vez", "38": "primeiro obstáculo", "39": "Regulamento dos Esportes",
    "40": "penalidade variável", "40.1.a": "valor da bola visada", "40.1.b": "maior valor envolvida",
    "41": "sete (7) pontos", "42": "falta disciplinar", "42.1": "advertência", "42.2": "desclassificação",
    "43": "falta disciplinar grave", "44": "falta técnica agravada", "44.2": "terceira falta consecutiva",
    "45": "maior valor envolvida", "46": "alertar", "47": "penalidade variável", "48": "penalidade máxima",
    "49": "faltas disciplinares", "50": "partida é encerrada", "50.1": "bola 6",
    "50.2": "reconhece a derrota na partida", "50.3": "falta técnica agravada", "51": "tacadeira e a bola 7",
    "51.1": "diferença igual a 7 pontos", "51.2": "qualquer falta determina a derrota",
    "52": "partida complementar", "53": "impasse", "53.1": "alerta os jogadores",
    "53.3": "partida é considerada nula", "54": "jogo termina", "54.1": "mínimo predeterminado de vitórias",
    "54.2": "reconhece derrota no jogo", "54.3": "segunda falta disciplinar", "54.4": "desclassificação",
    "55": "Ambos são considerados derrotados",
    **{f"47.{i}": KIND_WORDS[k.value] for k in FoulKind if k.article.startswith("47.")
       for i in [k.article.split(".")[1]]},
    **{k.article: KIND_WORDS[k.value] for k in FoulKind if k.article.split(".")[0] in ("48", "49")},
}

# What a cited item of Art. 25 or 35 must say when the line citing it is about one choice: a line
# about the replay never cites the item on playing on (the text's 25.3), and so on.
CHOICES = [
    (re.compile(r"pede o retorno|repete a jogada|asks for the replay|replays|plays the stroke again"),
     "repetição"),
    (re.compile(r"\bpassa\b|\bpasses\b|joga de novo|plays again"), "passar|recusar"),
]


def _words(ref: str) -> str:
    book = load()
    art, item = book.find(ref)
    if item is not None:
        return book.words(ref)
    return " ".join([art.text, *(i.text for i in art.items)])


def _check(ref: str, where: str) -> None:
    assert load().find(ref) is not None, f"{where}: Art. {ref} is not in the rules text"
    assert ref in SUBJECT, f"{where}: Art. {ref} has no subject in this test's table: read it in the text and add it"
    assert SUBJECT[ref] in _words(ref), f"{where}: Art. {ref} does not say {SUBJECT[ref]!r}"


def _check_line(line: str, where: str, choices: bool = False) -> None:
    """Each citation of ``line`` checked; with ``choices``, a line the engine wrote about one
    choice cites the item on that choice."""
    for ref in citations(line):
        _check(ref, where)
        if not choices:
            continue
        # an item announcing the choices ("que pode optar por:") is on every one of them
        if ref.split(".")[0] in ("25", "35") and "." in ref and not load().item(ref).text.endswith("optar por:"):
            for pattern, words in CHOICES:
                if pattern.search(line):
                    assert re.search(words, load().words(ref)), f"{where}: {line!r} cites {ref} ({load().words(ref)!r})"


def _written() -> list[tuple[str, str]]:
    out = []
    for top in WHERE:
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix in (".py", ".html", ".md") and path.is_file():
                rel = path.relative_to(ROOT)
                out += [(f"{rel}:{n}", line) for n, line in enumerate(path.read_text().splitlines(), 1)
                        if "Art" in line]
    return out


def test_every_article_written_in_the_product_and_its_docs_is_in_the_text_on_its_subject():
    lines = _written()
    assert len(lines) > 400 and sum(len(citations(line)) for _, line in lines) > 900
    for where, line in lines:
        _check_line(line, where)


def test_every_article_a_scenario_lists_is_in_the_text():
    for path in sorted(SCENARIOS.glob("*.json")):
        for ref in json.loads(path.read_text()).get("articles", []):
            _check(ref, path.name)


# (member, a phrase of one of the items it cites): a list, as members of two enums may be equal
# strings (FrameEnd.CONCESSION == MatchResult.CONCESSION == "concession")
MEMBER_WORDS = [
    (Choice.PLAY, "jogar"), (Choice.PASS, "passar|recusar"), (Choice.RETORNO, "repetição"),
    (FrameEnd.POT, "bola 7"), (FrameEnd.FOUL, "qualquer falta determina a derrota"), (FrameEnd.AGGRAVATED, "agravada"),
    (FrameEnd.DECIDER, "partida complementar"), (FrameEnd.CONCESSION, "reconhece a derrota na partida"),
    (MatchResult.FRAMES, "vitórias"), (MatchResult.CONCESSION, "reconhece derrota no jogo"),
    (MatchResult.DISQUALIFICATION, "desclassificação|falta grave"), (MatchResult.BOTH_DISQUALIFIED, "Ambos"),
    (TableWarning.STALEMATE, "alerta os jogadores"), (TableWarning.AGGRAVATED_LAST_CHANCE, "agravada"),
    (FoulGroup.VARIABLE, "penalidade variável"), (FoulGroup.MAX, "penalidade máxima"),
    (FoulGroup.DISCIPLINARY, "falta disciplinar"),
    *((k, KIND_WORDS[k.value]) for k in FoulKind),
]


@pytest.mark.parametrize("member, words", MEMBER_WORDS, ids=[f"{type(m).__name__}.{m.value}" for m, _ in MEMBER_WORDS])
def test_each_kind_choice_ending_and_warning_cites_the_item_on_it(member, words):
    refs = [r.strip() for r in member.article.split(",") if r.strip()]
    for ref in refs:
        _check(ref, repr(member))
    assert any(re.search(words, _words(ref)) for ref in refs), (member, refs)


def test_sanctions_cite_their_articles():
    for member in Sanction:
        for ref in [r.strip() for r in (member.article or "").split(",") if r.strip()]:
            _check(ref, repr(member))


def test_every_message_of_the_catalogue_cites_an_article_on_its_subject():
    for msg_id, (pt, en) in messages.MESSAGES.items():
        _check_line(pt, msg_id, choices=True)
        _check_line(en, msg_id, choices=True)


def test_every_line_the_engine_writes_for_the_scenarios_cites_an_article_on_its_subject():
    seen = set()
    for path in sorted(SCENARIOS.glob("*.json")):
        sc = json.loads(path.read_text())
        try:
            m = Match(sc["config"])
        except ValueError:
            continue
        for event in sc.get("events", []):
            try:
                step = m.apply(event)
            except ValueError:
                continue
            for lang in ("pt", "en"):
                line = step.description[lang]
                seen.update(citations(line))
                _check_line(line, f"{path.name}: {event}", choices=True)
    # fouls, choices (jogar, passar, retorno), warnings and endings were all written
    assert {"35.3", "35.4", "25.5", "36", "40", "42", "43", "51", "52", "55"} - seen == set()
