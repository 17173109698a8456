"""The rules text as data (``sinuca/rulebook.py``): the ids of its items by the scheme of
``docs/rules.md``, the words each id reads, and a text whose structure changed refused."""
import doctest
import pathlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sinuca.rulebook
from sinuca.rulebook import RulebookError, citations, load, parse

TEXT = (pathlib.Path(sinuca.rulebook.__file__).parent / "data" / sinuca.rulebook.FILE).read_text()
LINES = TEXT.splitlines()


def test_thirteen_titles_and_55_articles_in_the_texts_order():
    book = load()
    assert [t.number for t in book.titles] == ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X",
                                               "XI", "XII", "XIII"]
    assert book.titles[6].name == "DAS JOGADAS RETORNÁVEIS"
    assert [a.number for a in book.articles] == list(range(1, 56))
    assert [a.number for a in book.titles[6].articles] == [25, 26, 27, 28, 29, 30]
    assert book.article(55).text == ("Ambos são considerados derrotados se aplicada simultaneamente a penalidade "
                                     "de desclassificação.")
    assert book.closing[1:] == ("Brasília,29 de março de 2008", "Confederação Brasileira de Bilhar e Sinuca")
    assert sum(len(a.items) for a in book.articles) == 116  # every numbered or lettered line of the text


def test_the_flattened_lists_of_art_25_nest_by_indentation():
    book = load()
    assert [i.id for i in book.article(25).items] == [
        "25.1", "25.2", "25.3", "25.4", "25.5", "25.5.1", "25.5.2", "25.5.3", "25.5.4", "25.5.4.1"]
    assert book.item("25.3").text.startswith("jogar na bola da vez")
    assert book.item("25.4").text == "passar a tacada sem direito a recusa; ou"
    assert book.item("25.5").text == "requerer a repetição da jogada."
    assert book.item("25.5.2").text.startswith("Para repetição de jogada, as bolas movimentadas retornam")
    assert book.item("25.5.4.1").level == 3 and "dolo" in book.item("25.5.4.1").text


def test_a_list_that_starts_again_sits_under_the_first_item_announcing_it():
    book = load()
    six = {i.id: i.text for i in book.article(6).items}
    assert six["6.1.3"] == "147 pontos usando 15 bolas vermelhas."
    assert six["6.2.5"] == "bola 2, 27 pontos;" and six["6.2.7"].startswith("a cada vermelha adicional, mais 8")
    eight = {i.id: i.text for i in book.article(8).items}
    assert eight["8.1.3.2"] == "A sinuca total ou parcial é reconhecida quando originada:"
    assert eight["8.1.3.2.1"] == "por jogada lícita em bola da vez ou colorida; ou"
    assert eight["8.1.3.3"].startswith("A bola jogada como livre não pode ser usada como primeiro obstáculo")


def test_column_0_numbers_and_letters():
    book = load()
    assert [i.id for i in book.article(47).items] == [f"47.{n}" for n in range(1, 19)]
    assert book.item("47.17").text.startswith("deixar de cantar")
    assert [(i.id, i.level) for i in book.article(40).items] == [("40.1", 1), ("40.1.a", 2), ("40.1.b", 2)]
    assert book.item("40.1.a").text == "o valor da bola visada na jogada que resultou na falta; ou"
    assert book.item("1.2.1").text.startswith("seis, dez ou quinze vermelhas")


def test_find_and_words():
    book = load()
    assert book.find("99") is None and book.find("25.6") is None and book.find("25.5.9") is None
    assert book.find("0") is None and book.find("x") is None and book.find("25.") is None
    art, item = book.find("25.5.2")
    assert art.number == 25 and item.id == "25.5.2"
    assert book.find("30") == (book.article(30), None)
    assert book.words("25.5.2") == ("requerer a repetição da jogada. Para repetição de jogada, as bolas movimentadas "
                                    "retornam às posições originais, o mais fielmente possível, e:")
    with pytest.raises(KeyError):
        book.words("26.5")


def test_citations_in_a_line():
    assert citations("Bia pede o retorno: Ana repete a jogada (Art. 25.5, 30)") == ["25.5", "30"]
    assert citations("(Arts. 27 e 46) and Art. 35.3–35.5; Art. 40.1.a.") == ["27", "46", "35.3", "35.5", "40.1.a"]
    assert citations("Artigo 25 – texto; 5 pontos") == []


def test_the_docstring_examples_hold():
    result = doctest.testmod(sinuca.rulebook)
    assert result.failed == 0 and result.attempted >= 2


def _refused(text: str, line: int, words: str) -> None:
    with pytest.raises(RulebookError) as e:
        parse(text)
    assert e.value.line == line, e.value.message
    assert words in e.value.message_en, e.value.message_en
    assert e.value.message_pt.startswith(f"Texto das regras, linha {line}:")


def _changed(lineno: int, new: str | None) -> str:
    lines = list(LINES)
    if new is None:
        del lines[lineno - 1]
    else:
        lines[lineno - 1] = new
    return "\n".join(lines) + "\n"


def test_a_mangled_copy_is_refused(tmp_path):
    # a copy on disk, changed as an editor might: each change is refused at its line
    copy = tmp_path / sinuca.rulebook.FILE
    cases = [
        (_changed(213, None), 221, "Article 27 out of order (expected 26)"),               # Art. 26 deleted
        # the first item of a list that started again: 8.1.3.2.2 would read as 8.2
        (_changed(69, None), 59, "the items of Article 8 are not those of the 2008 text"),
        (_changed(203, "  6. passar a tacada sem direito a recusa; ou"), 203, "item 6 after item 3"),
        (_changed(207, "        3. a repetição na tacada é executada"), 207, "indentation of 8 spaces"),
        (_changed(238, "TÍTULO IX"), 238, "Título IX out of order (expected VIII)"),
        (_changed(240, "Do retorno"), 240, "expected the name of Título VIII"),
        (_changed(271, "Parágrafo único. é creditado ao oponente"), 271, "line of an unknown shape in Article 35"),
        (_changed(314, "c)   o equivalente à bola de maior valor"), 314, "letter c) out of order"),
        (_changed(370, "11. lançar bola para fora da mesa"), 370, "item 11 after item 9"),
        (TEXT.split("Artigo 55")[0], 456, "the text has 13 Títulos and 54 articles, expected 13 and 55"),
    ]
    for text, line, words in cases:
        copy.write_text(text)
        _refused(copy.read_text(), line, words)
    copy.write_text(TEXT)
    assert parse(copy.read_text()) == load()


ARTICLE_LINES = [n for n, line in enumerate(LINES, 1) if line.startswith("Artigo ")]


def _numbered(line: str) -> tuple[int, int] | None:
    """``(indent, number)`` of an item line, None for another line."""
    head = line.lstrip().split(".")[0]
    return (len(line) - len(line.lstrip()), int(head)) if head.isdigit() and "." in line else None


def _followed_in_its_list(n: int) -> bool:
    """Whether line ``n`` is an item whose list goes on at the next non-blank line."""
    here = _numbered(LINES[n - 1])
    nxt = next((x for x in LINES[n:] if x.strip()), "")
    return here is not None and _numbered(nxt) == (here[0], here[1] + 1)


# deleting such an item leaves a gap in its list's numbering
ITEM_LINES = [n for n in range(1, len(LINES) + 1) if _followed_in_its_list(n)]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(ARTICLE_LINES + ITEM_LINES), st.sampled_from(["delete", "renumber"]))
def test_any_article_or_item_deleted_or_renumbered_is_refused(lineno, how):
    line = LINES[lineno - 1]
    if how == "delete":
        text = _changed(lineno, None)
    elif line.startswith("Artigo "):
        n = int(line.split()[1].rstrip("º"))
        text = _changed(lineno, line.replace(f"Artigo {n}", f"Artigo {n + 2}", 1))
    else:
        n = _numbered(line)[1]
        text = _changed(lineno, line.replace(f"{n}.", f"{n + 2}.", 1))
    with pytest.raises(RulebookError):
        parse(text)
