"""The CBBS 2008 rules text as data: its titles, articles and items, each with a stable id.

The text (``sinuca/data/regras-sinuca-cbbs-2008.txt``) is the authority every "Art. N" of the
engine, the screens and the reports is checked against. It was published with its nested lists
flattened; the ids follow the text's own markers, and ``docs/rules.md`` ("How the items are
numbered") writes the scheme down:

- an article is ``"25"``; an item is the article and the markers of the item and of the items it
  sits under, dotted: ``"25.5"``, ``"25.5.2"``, ``"40.1.a"``;
- nesting is by indentation (2, 4, 6 spaces: levels 1, 2, 3); a number at column 0 (10. to 18.
  of Art. 47) goes on with the level-1 list; letters (``a)``) sit under the item before them;
- a list that starts again at 1 at the same indentation (Art. 6, 8) sits under the article's
  first earlier item that ends in ":" and has no items yet (6.1.1 "75 pontos", 8.1.3.2.1).

The parser refuses a text whose structure is not the one it knows (titles I to XIII in order,
articles 1 to 55 in order, each list counting 1, 2, 3…, no line of another shape) with a
:class:`RulebookError` naming the line, in Portuguese and English: a citation can only be
checked against a text whose numbering is certain.

>>> book = load()
>>> book.item("25.5").text
'requerer a repetição da jogada.'
>>> citations("pede o retorno (Art. 25.5, 30)")
['25.5', '30']
>>> citation_pieces("joga (Art. 35.3, 36)")
['joga (Art. ', ('35.3', '35.3'), ', ', ('36', '36'), ')']
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache

SOURCE = "Regras da Sinuca Brasileira, Confederação Brasileira de Bilhar e Sinuca (CBBS), Brasília, 29/03/2008"
"""Where the text comes from, as the API and the súmula's annex name it."""
FILE = "regras-sinuca-cbbs-2008.txt"
ARTICLES = 55
ROMAN = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII")

_TITLE = re.compile(r"TÍTULO ([IVXL]+)$")
_ARTICLE = re.compile(r"Artigo (\d+)º?\s+–\s+(\S.*)$")
_NUMBERED = re.compile(r"( *)(\d+)\.\s+(\S.*)$")
_LETTERED = re.compile(r"([a-z])\)\s+(\S.*)$")
# "Art. 25.5, 30", "Art. 35.3–35.5", "Arts. 27 e 46", "Art. 40.1.a"
_REF = r"\d+(?:\.\d+)*(?:\.[a-z])?"
_CITE = re.compile(rf"\bArts?\.\s*({_REF}(?:\s*(?:,|–|-|\be\b|\band\b)\s*{_REF}\b(?![%\w]))*)")


class RulebookError(ValueError):
    """A rules file whose structure is not the one the ids are defined on: ``line`` where, the
    reason in ``message_pt`` and ``message_en``, and ``message`` ``"<pt> / <en>"``. Not an
    engine refusal (no contract code): the product cannot start its rules from such a file."""

    def __init__(self, line: int, pt: str, en: str) -> None:
        self.line = line
        self.message_pt = f"Texto das regras, linha {line}: {pt}"
        self.message_en = f"Rules text, line {line}: {en}"
        self.message = f"{self.message_pt} / {self.message_en}"
        super().__init__(self.message)


@dataclass(frozen=True)
class Item:
    """One item of an article: ``id`` as ``"25.5.2"``, ``text`` verbatim, ``level`` 1 for the
    article's own list, 2 for a list under one of its items, and so on."""

    id: str
    text: str
    level: int


@dataclass(frozen=True)
class Article:
    """Article ``number`` (1..55): its opening ``text`` verbatim and its ``items`` in the text's
    order; ``title`` is its Título's roman number."""

    number: int
    text: str
    items: tuple[Item, ...]
    title: str

    @property
    def id(self) -> str:
        return str(self.number)


@dataclass(frozen=True)
class Title:
    """Título ``number`` (``"VII"``), its ``name`` as printed (``"DAS JOGADAS RETORNÁVEIS"``) and
    its articles."""

    number: str
    name: str
    articles: tuple[Article, ...]


@dataclass(frozen=True)
class Rulebook:
    """The whole text: its titles in order, and the closing lines after Art. 55 (the note on the
    table's drawings, the place and date, the signature)."""

    titles: tuple[Title, ...]
    closing: tuple[str, ...]
    source: str = SOURCE

    @property
    def articles(self) -> tuple[Article, ...]:
        return tuple(a for t in self.titles for a in t.articles)

    def as_dict(self) -> dict:
        """``{"source", "titles": [{"number", "name", "articles": [...]}]}``, each article as
        :meth:`article_dict`: what ``GET /api/rules/`` answers."""
        return {"source": self.source,
                "titles": [{"number": t.number, "name": t.name,
                            "articles": [self.article_dict(a) for a in t.articles]} for t in self.titles]}

    @staticmethod
    def article_dict(art: Article) -> dict:
        """``{"number", "title", "text", "items": [{"id", "text"}]}`` of ``art``, the text
        verbatim, the items in the text's order."""
        return {"number": art.number, "title": art.title, "text": art.text,
                "items": [{"id": i.id, "text": i.text} for i in art.items]}

    def article(self, number: int | str) -> Article | None:
        """Article ``number`` (``25`` or ``"25"``), None for one the text does not have."""
        try:
            n = int(number)
        except (TypeError, ValueError):
            return None
        return self.articles[n - 1] if 1 <= n <= len(self.articles) else None

    def item(self, ref: str) -> Item | None:
        """The item ``ref`` (``"25.5.2"``), None for one the text does not have."""
        art = self.article(str(ref).split(".")[0])
        return next((i for i in art.items if i.id == ref), None) if art else None

    def find(self, ref: str) -> tuple[Article, Item | None] | None:
        """``(article, item)`` for ``"25"`` (item None) or ``"25.5.2"``; None when either does not
        exist."""
        art = self.article(str(ref).split(".")[0])
        if art is None or not re.fullmatch(_REF, str(ref)):
            return None
        if "." not in ref:
            return art, None
        item = self.item(ref)
        return (art, item) if item else None

    def words(self, ref: str) -> str:
        """The words of ``ref`` verbatim: an article's opening text, or an item's text after the
        texts of the items it sits under (``"25.5.2"`` reads 25.5, then 25.5.2). KeyError for one
        the text does not have."""
        found = self.find(ref)
        if found is None:
            raise KeyError(ref)
        art, item = found
        if item is None:
            return art.text
        parts = ref.split(".")
        chain = [self.item(".".join(parts[:k])) for k in range(2, len(parts) + 1)]
        return " ".join(i.text for i in chain if i)


def citation_pieces(text: str) -> list[str | tuple[str, str]]:
    """``text`` cut into its plain stretches (``str``) and each cited id as ``(shown, id)``, in
    order, so a screen can link each citation: ``"joga (Art. 35.3, 36)"`` ->
    ``["joga (Art. ", ("35.3", "35.3"), ", ", ("36", "36"), ")"]``."""
    out: list[str | tuple[str, str]] = []
    at = 0
    for m in _CITE.finditer(text):
        for ref in re.finditer(_REF, m.group(1)):
            start, end = m.start(1) + ref.start(), m.start(1) + ref.end()
            out += [text[at:start], (ref.group(), ref.group())]
            at = end
    out.append(text[at:])
    return [p for p in out if p != ""]


def citations(text: str) -> list[str]:
    """Every article or item cited in ``text`` as "Art. N" / "Arts. N e M" / "Art. N.M, P", in
    order, as ids (``"25.5"``, ``"30"``); a range "35.3–35.5" gives both ends."""
    out = []
    for m in _CITE.finditer(text):
        out += re.findall(_REF, m.group(1))
    return out


# The items of every article that has any, as the ids (less the article) the 2008 text gives by
# the scheme above: a text whose structure differs is refused, whatever the change (an item
# deleted, moved or renumbered into another valid list), since every citation was checked
# against these ids.
SHAPE = """
1: 1 2 2.1 2.2
6: 1 2 1.1 1.2 1.3 2.1 2.2 2.3 2.4 2.5 2.6 2.7
8: 1 1.1 1.2 1.3 1.3.1 1.3.2 1.3.3 1.3.4 1.3.2.1 1.3.2.2
11: 1 2
12: 1 2 3 4 4.1 4.2
16: 1 2 3 4
22: 1 2 3 4
25: 1 2 3 4 5 5.1 5.2 5.3 5.4 5.4.1
26: 1 2 3 4
32: 1 2
35: 1 2 3 4 5 6
36: 1 2
37: 1 2
40: 1 1.a 1.b
41: 1
42: 1 2
43: 1
44: 1 2
47: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18
48: 1 2 3 4
49: 1 2 3 4 5
50: 1 2 3
51: 1 2
53: 1 2 3
54: 1 2 3 4
"""
_SHAPE = {int(n): v.split() for n, _, v in (line.partition(": ") for line in SHAPE.strip().splitlines())}


def parse(text: str) -> Rulebook:
    """The rulebook in ``text`` (the whole file), or :class:`RulebookError` at the first line
    whose structure is not the text's (a title or article out of order, a list that skips a
    number, an indentation the scheme does not know, a line of no known shape, an article whose
    items are not those of :data:`SHAPE`)."""
    parser = _Parser()
    lines = text.splitlines()
    for lineno, raw in enumerate(lines, 1):
        if raw.strip():
            parser.line(raw.rstrip(), lineno)
    return parser.end(len(lines))


class _Parser:
    """The state of :func:`parse` between lines."""

    def __init__(self) -> None:
        self.titles: list[Title] = []
        self.closing: list[str] = []
        self.title: tuple[str, str] | None = None
        self.expect_name = False
        self.articles: list[Article] = []
        self.art: dict | None = None
        self.last = 0

    def line(self, line: str, lineno: int) -> None:
        if self.closing:
            self.closing.append(line.strip())
        elif self.expect_name:
            if not re.fullmatch(r"D[AO]S? [A-ZÁÉÍÓÚÃÕÇÂÊÔ ]+", line.strip()):
                raise RulebookError(lineno, f"esperado o nome do Título {self.title[0]}, em maiúsculas",
                                    f"expected the name of Título {self.title[0]}, in capitals")
            self.title, self.expect_name = (self.title[0], line.strip()), False
        elif m := _TITLE.fullmatch(line.strip()):
            self.end_title(lineno)
            want = ROMAN[len(self.titles)] if len(self.titles) < len(ROMAN) else None
            if m.group(1) != want:
                raise RulebookError(lineno, f"Título {m.group(1)} fora de ordem (esperado {want})",
                                    f"Título {m.group(1)} out of order (expected {want})")
            self.title, self.expect_name = (m.group(1), ""), True
        elif m := _ARTICLE.fullmatch(line.strip()):
            number = int(m.group(1))
            if self.title is None or number != self.last + 1:
                raise RulebookError(lineno, f"Artigo {number} fora de ordem (esperado {self.last + 1})",
                                    f"Article {number} out of order (expected {self.last + 1})")
            self.end_article()
            self.last = number
            self.art = {"number": number, "text": m.group(2).strip(), "items": [], "frames": [], "line": lineno}
        elif line.lstrip().startswith("•") and self.last == ARTICLES:
            self.end_article()
            self.closing.append(line.strip())
        elif self.art is None:
            raise RulebookError(lineno, "linha fora de qualquer artigo", "line outside any article")
        else:
            _add_item(self.art, line, lineno)

    def end_article(self) -> None:
        art, self.art = self.art, None
        if art is None:
            return
        ids = [i.id.split(".", 1)[1] for i in art["items"]]
        if ids != _SHAPE.get(art["number"], []):
            raise RulebookError(art["line"], f"os itens do Artigo {art['number']} não são os do texto de 2008 "
                                f"({' '.join(ids) or 'nenhum'})", f"the items of Article {art['number']} are not "
                                f"those of the 2008 text ({' '.join(ids) or 'none'})")
        self.articles.append(Article(art["number"], art["text"], tuple(art["items"]), self.title[0]))

    def end_title(self, lineno: int) -> None:
        self.end_article()
        if self.title is None:
            return
        if not self.articles:
            raise RulebookError(lineno, f"o Título {self.title[0]} não tem artigos",
                                f"Título {self.title[0]} has no articles")
        self.titles.append(Title(self.title[0], self.title[1], tuple(self.articles)))
        self.articles = []

    def end(self, lineno: int) -> Rulebook:
        if self.expect_name or self.title is None:
            raise RulebookError(lineno, "o texto termina num Título sem nome", "the text ends in a Título without a name")
        self.end_title(lineno)
        if len(self.titles) != len(ROMAN) or self.last != ARTICLES:
            raise RulebookError(lineno, f"o texto tem {len(self.titles)} Títulos e {self.last} artigos, "
                                f"esperados {len(ROMAN)} e {ARTICLES}",
                                f"the text has {len(self.titles)} Títulos and {self.last} articles, "
                                f"expected {len(ROMAN)} and {ARTICLES}")
        return Rulebook(tuple(self.titles), tuple(self.closing))


def _add_item(art: dict, line: str, lineno: int) -> None:
    """Put the item on ``line`` into ``art`` with its id (the module's scheme). ``art["frames"]``
    holds the open lists, shallow to deep: ``[indent, parent id, last marker]``."""
    if m := _LETTERED.fullmatch(line):
        _add_letter(art, m.group(1), m.group(2).strip(), lineno)
    else:
        _add_numbered(art, line, lineno)


def _add_letter(art: dict, letter: str, text: str, lineno: int) -> None:
    """A lettered item (``a)``) under the item before it."""
    items, frames, number = art["items"], art["frames"], art["number"]
    if frames and frames[-1][0] == "letter":
        frame = frames[-1]
        if ord(letter) != ord(frame[2]) + 1:
            raise RulebookError(lineno, f"alínea {letter}) fora de ordem no Artigo {number}",
                                f"letter {letter}) out of order in Article {number}")
    else:
        if letter != "a" or not items:
            raise RulebookError(lineno, f"alínea {letter}) sem item antes no Artigo {number}",
                                f"letter {letter}) with no item before it in Article {number}")
        frame = ["letter", items[-1].id, "a"]
        frames.append(frame)
    frame[2] = letter
    items.append(Item(f"{frame[1]}.{letter}", text, frame[1].count(".") + 1))


def _add_numbered(art: dict, line: str, lineno: int) -> None:
    """A numbered item: in the list open at its indentation, or a new list under the item before."""
    items, frames, number = art["items"], art["frames"], art["number"]
    m = _NUMBERED.fullmatch(line)
    if m is None:
        raise RulebookError(lineno, f"linha de forma desconhecida no Artigo {number}: {line.strip()[:40]!r}",
                            f"line of an unknown shape in Article {number}: {line.strip()[:40]!r}")
    indent, n, text = len(m.group(1)), int(m.group(2)), m.group(3).strip()
    if indent == 0:
        # markdown's flattening put two-digit numbers at column 0: they go on with the level-1 list
        if n < 10:
            raise RulebookError(lineno, f"item {n} sem recuo no Artigo {number}",
                                f"item {n} without indentation in Article {number}")
        indent = 2
    if indent not in (2, 4, 6):
        raise RulebookError(lineno, f"recuo de {indent} espaços no Artigo {number} (2, 4 ou 6)",
                            f"an indentation of {indent} spaces in Article {number} (2, 4 or 6)")
    while frames and (frames[-1][0] == "letter" or frames[-1][0] > indent):
        frames.pop()
    if frames and frames[-1][0] == indent:
        frame = frames[-1]
        if n == frame[2] + 1:
            frame[2] = n
        elif n == 1:
            parents = {i.id.rsplit(".", 1)[0] for i in items}
            pending = next((i for i in items if i.text.endswith(":") and i.id not in parents), None)
            if pending is None:
                raise RulebookError(lineno, f"a lista recomeça em 1 no Artigo {number} sem item que a anuncie (':')",
                                    f"a list starts again at 1 in Article {number} with no item announcing it (':')")
            frame[1], frame[2] = pending.id, 1
        else:
            raise RulebookError(lineno, f"item {n} depois do item {frame[2]} no Artigo {number}",
                                f"item {n} after item {frame[2]} in Article {number}")
    else:
        if frames and indent != frames[-1][0] + 2 or not frames and indent != 2:
            raise RulebookError(lineno, f"recuo de {indent} espaços sem lista acima no Artigo {number}",
                                f"an indentation of {indent} spaces with no list above it in Article {number}")
        if n != 1:
            raise RulebookError(lineno, f"a lista começa no item {n} no Artigo {number}",
                                f"the list starts at item {n} in Article {number}")
        frame = [indent, items[-1].id if frames else str(number), 1]
        frames.append(frame)
    parent = frame[1]
    items.append(Item(f"{parent}.{n}", text, parent.count(".") + 1))


def read_text() -> str:
    """The rules file shipped in the package, read through the package's loader: from the disk
    on the server, from the engine zip on the tablet (zipimport), so the tablet needs no file
    system of its own."""
    here = os.path.dirname(__file__)
    path = os.path.join(here, "data", FILE)
    loader = globals().get("__loader__")
    data = loader.get_data(path) if loader is not None and hasattr(loader, "get_data") else open(path, "rb").read()
    return data.decode("utf-8")


@lru_cache(maxsize=1)
def load() -> Rulebook:
    """The shipped rulebook, parsed once per process (:func:`parse` of :func:`read_text`)."""
    return parse(read_text())
