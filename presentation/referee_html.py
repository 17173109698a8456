"""The referee tablet drawn once: HTML from the engine's tablet view.

One function, :func:`region`, turns a tablet view (:func:`presentation.tablet_board.tablet_view`) into
the inner HTML of the tablet's ``#ref-live`` region: the board (players, facts, banners, the log)
and the controls (the phase's buttons, the decision's choices, undo, the Art. 28 question, the
free ball, "Mais ações"). The server's page includes its output (``scoreboard/pages/tags.py``)
and the tablet's in-browser engine (Pyodide, ``static/scoreboard/engine.js``) calls the same
function offline and before the server answers; the page's JavaScript only swaps the HTML it is
given. :func:`foul_dialog` and :func:`foul_preview` draw the foul dialog and its preview lines
the same way.

Every text (names above all) is escaped here: the view holds plain text, never markup. No Django
import: this module ships in the tablet's engine zip.
"""
from __future__ import annotations

import json

from sinuca import rulebook
from sinuca.article_titles import short_title

from .rulebook import GLOSS_EN, TITLES_EN

# The board's and the log's words (pt, en); the controls' words come with the view's rows.
WORDS = {
    "board": ("Placar", "Score"),
    "frames": ("partidas", "frames"),
    "warnings": ("advertências", "warnings"),
    "next_player": ("a seguir", "next"),
    "frame": ("Partida", "Frame"),
    "best_of": ("melhor de {n}", "best of {n}"),
    "break": ("Tacada", "Break"),
    "ball_on": ("Bola da vez", "Ball on"),
    "remaining": ("Pontos em jogo", "Points remaining"),
    "awaits_decision": ("aguarda a decisão", "awaiting the decision"),
    "awaits_lot": ("aguarda o sorteio", "awaiting the lot"),
    "reds": ("Vermelhas", "Reds"),
    "snookers": ("Sinucas necessárias", "Snookers required"),
    "log": ("Últimos eventos", "Last events"),
    "void": ("anulada", "void"),
    "no_events": ("Nenhum evento ainda", "No events yet"),
    "next_match": ("Próximo jogo desta mesa", "Next match on this table"),
    "art28_yes": ("Art. 28: SIM, há sinuca agravada. Uma falta agora é falta técnica agravada.",
                  "Art. 28: YES, there is an aggravated snooker. A foul now is an aggravated technical foul."),
    "art28_no": ("Art. 28: NÃO há sinuca agravada.", "Art. 28: there is NO aggravated snooker."),
    "close": ("Toque em qualquer lugar para fechar", "Tap anywhere to close"),
    "no_article": ("As regras não têm o artigo {ref} (artigos 1 a 55)",
                   "The rules have no article {ref} (articles 1 to 55)"),
    "authority": ("", "The Portuguese text is the authority; the line in italics is this scoreboard's gloss."),
    "why": ("Por quê? Evento nº {seq}", "Why? Event no. {seq}"),
    "before": ("Antes do evento", "Before the event"),
    "score": ("Placar", "Score"),
    "at_table": ("Na mesa", "At the table"),
    "decides": ("Decide", "Deciding"),
    "rule": ("Regra aplicada", "Rule applied"),
    "no_rule": ("Nenhum artigo citado neste evento.", "No article cited by this event."),
    "why_hint": ("Toque numa linha para ver por quê", "Tap a line to see why"),
}


def word(key: str, lang: str = "pt", **fields) -> str:
    """The board word ``key`` in ``lang`` ("pt" or "en"), its ``{fields}`` filled in."""
    return WORDS[key][lang == "en"].format(**fields)


_ESC = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def _text(value) -> str:
    """Text escaped for an element's content (``&``, ``<``, ``>``)."""
    return "" if value is None else str(value).translate(_ESC)


def _attr(name: str, value) -> str:
    """`` name="value"``, escaped; a value holding double quotes (an event's JSON) is written in
    single quotes, so the page's markup reads as the event (``value='{"type":"undo"}'``)."""
    if value is True:
        return " " + name
    if value is None or value is False:
        return ""
    v = str(value).translate(_ESC)
    if '"' in v:
        return f" {name}='" + v.replace("'", "&#x27;") + "'"
    return f' {name}="{v}"'


def _tag(tag: str, attrs: dict | None = None, inner: str = "") -> str:
    """``<tag attrs>inner</tag>``: ``inner`` is markup already escaped."""
    if not attrs:
        return f"<{tag}>{inner}</{tag}>"
    return f"<{tag}{''.join([_attr(k, v) for k, v in attrs.items()])}>{inner}</{tag}>"


def _void(tag: str, attrs: dict) -> str:
    """``<tag attrs>`` of an element without content (``input``)."""
    return f"<{tag}{''.join([_attr(k, v) for k, v in attrs.items()])}>"


def _cited(value, escape=_text) -> str:
    """Text escaped by ``escape`` (:func:`_text` unless told), each article it cites ("Art. 35.3,
    36") a tap that opens the article's words on the tablet (``data-art``, the rulebook's id; the
    page's script asks the engine, or the server without it, for :func:`article_panel`). Not
    inside a button: a decision's choice stays one tap whole (its articles are chips beside it)."""
    out = []
    for p in rulebook.citation_pieces("" if value is None else str(value)):
        if isinstance(p, str):
            out.append(escape(p))
        else:
            out.append(_tag("span", {"class": "art", "data-art": p[1], "role": "button", "tabindex": "0"}, _text(p[0])))
    return "".join(out)


def cited(text, escape=_text) -> str:
    """A line's text with its citations as taps (:func:`_cited`), held in one span when it has
    any: in a flex box (a heading, the message bar) each tap would be an item of its own and the
    spaces around it dropped. The server's message bar passes Django's ``escape``."""
    inner = _cited(text, escape)
    return _tag("span", None, inner) if inner != escape("" if text is None else str(text)) else inner


def _uncited(text: str) -> tuple[str, list[str]]:
    """``text`` without its citations in brackets (" (Art. 35.3, 36)"), and the ids they cite in
    order, once each: a decision's choice shows its articles as chips beside its button."""
    refs = list(dict.fromkeys(rulebook.citations(text)))
    out = text
    at = out.find("(Art")
    while at >= 0:
        end = out.find(")", at)
        if end < 0:
            break
        out = out[:at].rstrip() + out[end + 1:]
        at = out.find("(Art")
    return out, refs


def _local(text, lang: str) -> str:
    """A text of the view: plain, or ``{"pt", "en"}``."""
    if isinstance(text, dict):
        return text.get(lang) or text.get("pt") or ""
    return text or ""


def _button(b: dict, urls: dict, **extra) -> str:
    """One button of the view's rows: an event button submits the controls' form; an action
    (``ask``, ``cancel``, ``foul``) is the page's gesture, named by ``data-action``."""
    attrs: dict = {"class": b["cls"]}
    if b.get("event"):
        attrs.update(name="event", value=b["event"])
    else:
        attrs["type"] = "button"
    action = b.get("action")
    if action:
        attrs["data-action"] = action
    if action == "foul":
        attrs.update({"hx-get": urls.get("foul", ""), "hx-target": "#foul-body", "hx-swap": "innerHTML"})
    attrs.update(extra)
    attrs["disabled"] = not b.get("enabled", True)
    inner = _text(b["label"])
    if b.get("small"):
        inner += " " + _tag("small", None, _text(b["small"]))
    return _tag("button", attrs, inner)


def _confirmable(row: dict, cls: str, urls: dict) -> str:
    ask, yes, cancel = row["buttons"]
    return _tag("div", {"class": cls}, _button(ask, urls) + _tag("span", {"class": "confirm"},
        _tag("span", {"class": "confirm-what"}, _cited(row["title"])) + _button(yes, urls) + _button(cancel, urls)))


_ROW_CLS = {"balls": "row balls ref-balls", "reds": "row ref-reds", "actions": "row ref-actions",
            "lot": "row", "next": "row", "bonus": "row balls", "plain": "row"}


def _row(row: dict, urls: dict, lang: str, seq: int = 0) -> str:
    kind = row["kind"]
    if kind == "title":
        return _tag("h2", {"class": "ref-head"}, cited(row["title"]))
    if kind == "penalty":
        return _tag("p", {"class": "penalty"}, _cited(row["title"]))
    if kind == "result":
        return "".join(_tag(x["tag"], {"class": x["cls"]}, _cited(x["text"])) for x in row["texts"])
    if kind == "decision":
        return _tag("div", {"class": "decision-list"}, "".join(_choice(b) for b in row["buttons"]))
    if kind == "order":
        return _tag("div", {"class": "row order-row"}, _tag("p", {"class": "order-title"}, _text(row["title"]))
                    + "".join(_button(b, urls) for b in row["buttons"])
                    + "".join(_order_picker(p, urls) for p in row.get("pickers") or ()))
    if kind == "undo":
        return _confirmable(row, "row confirmable undo", urls)
    if kind == "confirm":
        return _confirmable(row, "row confirmable", urls)
    if kind == "art28":
        said = {"yes": word("art28_yes", lang), "no": word("art28_no", lang)}
        # the answer belongs to this stroke (the board's seq): any stroke after it clears it
        return _tag("div", {"class": "row art28", "data-seq": seq},
                    _tag("span", {"class": "q"}, _text(row["title"])) + "".join(
                        _button(b, urls, **{"data-answer": b["answer"], "aria-pressed": "false",
                                            "data-said": said[b["answer"]], "hx-post": urls.get("art28", ""),
                                            "hx-vals": json.dumps({"answer": b["answer"]}), "hx-swap": "none"})
                        for b in row["buttons"]))
    if kind == "freeball":
        return _tag("div", {"class": "freeball"}, _tag("p", {"class": "fb-title"}, _text(row["title"]))
                    + _tag("div", {"class": "row balls"}, "".join(_button(b, urls) for b in row["buttons"])))
    if kind == "more":
        # its actions open over the controls below (a panel), never pushing them down
        return _tag("details", {"class": "more"}, _tag("summary", None, _text(row["title"]))
                    + _tag("div", {"class": "more-panel"}, "".join(_row(r, urls, lang, seq) for r in row["rows"])))
    if kind == "next_match":
        return _tag("div", {"class": "row"}, _tag("a", {"class": "big next-match", "href": row["href"]},
                                                  _text(word("next_match", lang))))
    return _tag("div", {"class": _ROW_CLS.get(kind, "row")}, "".join(_button(b, urls) for b in row["buttons"]))


def _choice(b: dict) -> str:
    """A decision's choice: its button (label and what it does), one tap whole, and beside it,
    outside the button, a chip per article it cites (``span.art``: a tap that opens the article,
    never the choice). The chips' box has one width whatever it holds, so the buttons keep their
    place from one decision to the next."""
    explain, refs = _uncited(_text(b["explain"]))
    button = _tag("button", {"class": b["cls"], "name": "event", "value": b["event"], "data-choice": b["choice"],
                             "disabled": not b.get("enabled", True)},
                  _tag("span", {"class": "choice-label"}, _text(b["label"])) + " "
                  + _tag("span", {"class": "choice-explain"}, explain))
    chips = "".join(_tag("span", {"class": "art art-chip", "data-art": r, "role": "button", "tabindex": "0"},
                         _tag("small", None, "Art.") + " " + _text(r)) for r in refs)
    return _tag("div", {"class": "choice-item"}, button + _tag("span", {"class": "choice-arts"}, chips))


def _order_picker(p: dict, urls: dict) -> str:
    """A side's order by tapping its names in turn: nested ``<details>`` (one open per level,
    the browser's exclusive ``name`` group), the last name a button sending the whole order; no
    script keeps the names tapped so far."""

    def level(nodes: list) -> str:
        return _tag("div", {"class": "order-level"}, "".join(
            _button(n["button"], urls) if "button" in n else
            _tag("details", {"class": "order-node", "name": n["group"]},
                 _tag("summary", None, _text(n["name"])) + level(n["children"]))
            for n in nodes))

    return _tag("details", {"class": "order-pick", "data-side": p["side"]},
                _tag("summary", None, _text(p["summary"])) + _tag("p", {"class": "order-hint"}, _text(p["hint"]))
                + level(p["nodes"]))


def _log(lines: list, lang: str) -> str:
    """The log, newest first: each line with its number; an event taken back struck through and
    marked "anulada"; an undo says what it took back (as the súmula)."""
    out = []
    for line in lines:
        desc = _local(line.get("description"), lang)
        seq = _tag("span", {"class": "seq"}, _text(line["seq"]))
        if line.get("undone_by"):
            out.append(_tag("li", {"class": "undone", "data-why": line["seq"]},
                            seq + " " + _tag("em", {"class": "void"}, _text(word("void", lang)))
                            + " " + _tag("s", None, _cited(desc))))
        else:
            out.append(_tag("li", {"data-why": line["seq"]}, seq + " " + _cited(desc)))
    if not out:
        out.append(_tag("li", {"class": "muted"}, _text(word("no_events", lang))))
    return _tag("ol", {"class": "ref-log", "aria-label": word("log", lang)}, "".join(out))


def _in_play(v: dict) -> str:
    """ "Pontos em jogo": the table's points, and Art. 7's free-ball points beside them ("107 + 8")."""
    extra = v.get("free_ball_points") or 0
    return f"{v['points_remaining']} + {extra}" if extra else str(v["points_remaining"])


# "▶" before the name of whoever is at the table; drawn for every name and shown by the CSS for
# his only, so that a name takes the same lines whoever is at the table
_MARK = _tag("span", {"class": "mark"}, "▶ ")


def _board(v: dict, lang: str) -> str:
    players = []
    for i, p in enumerate(v["players"]):
        cls = "ref-player" + (" at-table" if p["at_table"] else "") + (" winner" if v.get("winner") == i else "")
        # "partidas: 0", "advertências: 1" each kept whole: a narrow box breaks the line between them
        frames = _tag("span", {"class": "nw"}, _text(f"{word('frames', lang)}: {p['frames']}"))
        if p.get("warnings"):
            frames += " · " + _tag("span", {"class": "nw"}, _text(f"{word('warnings', lang)}: {p['warnings']}"))
        members = ""
        if p.get("members"):
            # doubles: who of the side is at the table, who plays next (Art. 1)
            members = _tag("ul", {"class": "ref-members"}, "".join(
                _tag("li", {"class": "member" + (" at-table" if m["at_table"] else "") + (" next" if m["next"] else "")},
                     _MARK + _text(m["name"])
                     + _tag("span", {"class": "next"}, " " + _tag("span", {"class": "next-tag"},
                                                                    _text(word("next_player", lang))))
                     + (" " + _tag("span", {"class": "warn-tag"}, _text(f"⚠{m['warnings']}")) if m["warnings"] else ""))
                for m in p["members"]))
        # doubles: a side named by its players' names is shown by the list of them alone
        named = not p.get("members") or p["name"] != " / ".join(m["name"] for m in p["members"])
        players.append(_tag("div", {"class": cls},
                            (_tag("div", {"class": "ref-name"}, _MARK + _text(p["name"])) if named else "")
                            + members
                            + _tag("div", {"class": "ref-score"}, _text(p["score"]))
                            + _tag("div", {"class": "ref-frames"}, frames)))
    due = v["phase"] in ("play", "decision")
    # no ball is on while a decision or a lot is awaited: the board says which, not "—"
    awaited = {"decision": "awaits_decision", "lot": "awaits_lot"}.get(v["phase"])
    ball_on = ("".join(_tag("span", {"class": f"dot ball-{b}"}) for b in v["ball_on"])
               or (_text(word(awaited, lang)) if awaited else "—"))

    def fact(term, dd, dd_cls=None, dt_cls=None):
        return _tag("div", None, _tag("dt", {"class": dt_cls}, _text(word(term, lang)))
                    + _tag("dd", {"class": dd_cls}, dd))

    facts = (fact("frame", _text(f"{v['frame_number']} · {word('best_of', lang, n=v['best_of'])}"))
             + fact("break", _text(v["break"]), "ref-break")
             + fact("ball_on", ball_on, "ref-ballon")
             # no stroke is due (before the lot, after the frame): a dash, not a misleading 0
             + fact("remaining", _text(_in_play(v) if due else "—"), "ref-remaining")
             + fact("reds", _text(v["reds_remaining"]))
             + fact("snookers", _text(v["snookers_required"] if due else "—"), None, "wrap"))
    banners = "".join(_tag("div", {"class": b["cls"], "role": "alert" if b.get("alert") else None}, _cited(b["text"]))
                      for b in v["banner_rows"])
    return _tag("section", {"class": "ref-board", "aria-label": word("board", lang)},
                _tag("div", {"class": "ref-players"}, "".join(players))
                + _tag("dl", {"class": "ref-facts"}, facts)
                + _tag("div", {"class": "ref-banners"}, banners)
                + _log(v.get("log") or [], lang))


def _controls(rows: list, phase: str, urls: dict, lang: str, seq: int = 0) -> str:
    """The controls' rows laid out so that each control keeps one place for the whole match
    (the page's CSS sizes the slots): the heading (the phase's title, or the result's heading);
    "Desfazer…" and "Mais ações" side by side under it in every phase; the phase's rows; and
    last the rows that come and go (the order of play before a frame's first stroke, the free
    ball, the 7 for the break), so that their going moves nothing. In a decision the penalty and
    "Falta disciplinar…" share the row above the choices, however many choices there are, and
    "Falta disciplinar…" keeps that place in a lot and between frames (Art. 42, 43); after a
    frame "Próxima partida" (or the next match) comes next, then the result's reason."""
    head, tools, first, body, tail, decision_head = "", "", "", "", "", ""
    for r in rows:
        kind = r["kind"]
        if kind == "title":
            head = _row(r, urls, lang, seq)
        elif kind == "result":
            texts = r["texts"]
            if texts and texts[0]["tag"] == "h2":
                head = _tag("h2", {"class": "ref-head " + texts[0]["cls"]}, cited(texts[0]["text"]))
                texts = texts[1:]
            body += _row({**r, "texts": [t for t in texts if t["cls"] != "bonus-seven"]}, urls, lang, seq)
            tail += _row({**r, "texts": [t for t in texts if t["cls"] == "bonus-seven"]}, urls, lang, seq)
        elif kind in ("next", "next_match"):
            first += _row(r, urls, lang, seq)
        elif kind in ("undo", "more"):
            tools += _row(r, urls, lang, seq)
        elif kind in ("order", "freeball", "bonus"):
            tail += _row(r, urls, lang, seq)
        elif phase in ("decision", "lot", "frame_over") and kind in ("penalty", "actions"):
            decision_head += _row(r, urls, lang, seq)
        else:
            body += _row(r, urls, lang, seq)
    if phase in ("lot", "frame_over") and decision_head:
        # "Falta disciplinar…" where it is in a decision: right under the tools, at the right
        decision_head = _tag("p", {"class": "penalty"}) + decision_head
    if phase == "decision" or decision_head:
        first = _tag("div", {"class": "decision-head"}, decision_head) + first
    return ((head or _tag("h2", {"class": "ref-head"})) + _tag("div", {"class": "ref-tools"}, tools)
            + first + body + tail)


def region(v: dict, lang: str = "pt") -> str:
    """The inner HTML of the tablet's ``#ref-live`` region for the tablet view ``v``: the board
    and the controls' form (posting to ``v["urls"]["event"]``, expected seq ``v["seq"]``).

    Every control carries the board it was drawn on: its form's ``expected_seq`` and
    ``data-board`` (``"<seq>:<phase>"``), which the page's tap guard compares with the board
    shown (a tap aimed at a board that has since changed is dropped)."""
    lang = "en" if lang == "en" else "pt"
    urls = v.get("urls") or {}
    seq = v.get("seq", 0)
    controls = _void("input", {"type": "hidden", "name": "expected_seq", "value": seq})
    controls += _controls(v["controls"], v["phase"], urls, lang, seq)
    form = _tag("form", {"class": "ref-controls", "hx-post": urls.get("event", ""), "hx-swap": "none",
                         "data-live-response": True, "data-board": f"{seq}:{v['phase']}"}, controls)
    return _board(v, lang) + form


def _chip(c: dict) -> str:
    attrs = {"type": c["type"], "name": c["name"], "value": c["value"], "checked": bool(c.get("checked"))}
    if c.get("nominates"):
        # an offender: the kinds for which his foul names the colour aimed at (the engine's answer)
        attrs["data-nominates"] = json.dumps(c["nominates"])
    inp = _void("input", attrs)
    dot = _tag("span", {"class": f"dot ball-{c['ball']}"}) if c.get("ball") else ""
    return _tag("label", {"class": "chip chip-n" if c["name"] == "potted_reds" else "chip"},
                inp + dot + _tag("span", None, _text(c["label"])))


def _chips(choices: list) -> str:
    return _tag("div", {"class": "chips"}, "".join(_chip(c) for c in choices))


def foul_preview(p: dict) -> str:
    """The foul dialog's preview lines (:func:`presentation.tablet_foul.preview_texts`) as HTML."""
    return "".join(_tag("p", {"class": line["cls"]}, _cited(line["text"])) for line in p["lines"])


def foul_dialog(f: dict, preview: dict | None = None, urls: dict | None = None, seq: int = 0) -> str:
    """The foul dialog's form (:func:`presentation.tablet_foul.foul_form` ``f``) as HTML, its preview
    lines ``preview`` already in place: who committed it, the colour aimed at and the kind of
    foul first, the rest in the fields below, the penalty and "Confirmar falta" pinned at the
    bottom. While a
    colour is owed, "Confirmar falta" starts disabled (the page's gate enables it once
    answered); so it does while nobody is at the table (``f["off_table"]``: a disciplinary
    foul, nothing preselected) until a kind and the offender are chosen (``data-needs-choice``)."""
    urls = urls or {}
    labels = f.get("labels") or {}
    who, head, fields = "", "", ""
    for x in f["fields"]:
        inner = _tag("legend", None, _text(x["legend"])) + _chips(x["choices"])
        if x.get("more"):
            inner += _tag("details", {"class": "more-kinds"}, _tag("summary", None, _text(x["more"]["summary"]))
                          + "".join(_tag("p", {"class": "kind-group"}, _text(g["label"])) + _chips(g["choices"])
                                    for g in x["more"]["groups"]))
        fs = _tag("fieldset", {"class": x.get("cls") or None}, inner)
        if x["choices"] and x["choices"][0]["name"] == "player":
            who = _tag("fieldset", {"class": ((x.get("cls") or "") + " offender").strip()}, inner)
        elif x.get("cls") in ("nominated-q", "kinds"):
            head += fs
        else:
            fields += fs
    actions = _tag("div", {"class": "foul-actions"},
                   _tag("div", {"id": "foul-preview", "class": "foul-preview", "aria-live": "polite"},
                        foul_preview(preview) if preview else "")
                   + _tag("div", {"class": "row"},
                          _tag("button", {"class": "big danger", "type": "button", "hx-post": urls.get("foul_submit", ""),
                                          "hx-include": "#foul-form", "hx-swap": "none", "data-live-response": True,
                                          "data-close-dialog": True,
                                          "disabled": bool(f["needs_nomination"] or f.get("off_table"))},
                               _text(labels.get("confirm", "")))
                          + _tag("button", {"class": "big", "type": "button", "data-action": "close-dialog"},
                                 _text(labels.get("cancel", "")))))
    seq_input = _void("input", {"type": "hidden", "name": "expected_seq", "value": seq})
    attrs = {"id": "foul-form", "class": "foul-form", "hx-post": urls.get("foul_preview", ""),
             "hx-trigger": "change", "hx-target": "#foul-preview"}
    if f["needs_nomination"]:
        # a colour is owed: the checked offender's data-nominates says whether his kind asks it
        attrs["data-needs-nomination"] = True
    if f.get("off_table"):
        # nobody at the table: the disciplinary kind and its offender, both chosen by the referee
        attrs["data-needs-choice"] = "kind player"
    return _tag("form", attrs, seq_input + _tag("h2", None, _text(f["title"])) + who + head
                + _tag("div", {"class": "foul-fields"}, fields) + actions)


def article_panel(ref: str, lang: str = "pt") -> str:
    """The words of article or item ``ref`` (``"25.5.2"``) for the tablet's rule dialog: the
    article's number, short title and Título, its opening text and every item verbatim (the
    cited item and the items it sits under marked ``cited``), in English with the project's
    gloss under the Portuguese text. A reference the text lacks draws the refusal, pt and en.
    Drawn alike by the server (``/rules/<ref>/panel/``) and the tablet's engine (offline)."""
    lang = "en" if lang == "en" else "pt"
    book = rulebook.load()
    found = book.find(str(ref))
    close = _tag("p", {"class": "rule-close"}, _text(word("close", lang)))
    if found is None:
        ref = str(ref)[:20]
        return _tag("div", {"class": "rule-panel rule-missing", "role": "alert"},
                    _tag("p", None, _text(word("no_article", "pt", ref=ref)) + " / "
                         + _tag("span", {"lang": "en"}, _text(word("no_article", "en", ref=ref)))) + close)
    art, item = found
    chain = {".".join(str(ref).split(".")[:k]) for k in range(2, str(ref).count(".") + 2)} if item else set()
    title = next(t for t in book.titles if t.number == art.title)
    head = _tag("p", {"class": "rule-head"}, _tag("b", None, _text(f"Art. {art.number}")) + " — "
                + _text(short_title(art.number, lang))
                + _tag("span", {"class": "rule-titulo"}, _text(f"TÍTULO {title.number} — {title.name}")
                       + (_text(f" ({TITLES_EN[title.number]})") if lang == "en" else "")))
    items = "".join(_tag("li", {"class": f"lv{i.level}" + (" cited" if i.id == item.id else " cited-in" if i.id in chain else "")
                                if item else f"lv{i.level}", "data-id": i.id},
                         _tag("b", None, _text(i.id)) + " " + _text(i.text)) for i in art.items)
    gloss = (_tag("p", {"class": "rule-gloss", "lang": "en"}, _text(GLOSS_EN[art.number]))
             + _tag("p", {"class": "rule-authority", "lang": "en"}, _text(word("authority", "en")))) if lang == "en" else ""
    return _tag("div", {"class": "rule-panel", "data-ref": ref, "lang": "pt-br"},
                head + _tag("p", {"class": "rule-text" + ("" if item else " cited")}, _text(art.text))
                + (_tag("ol", {"class": "rule-items"}, items) if items else "") + gloss + close)


def why_panel(w: dict, lang: str = "pt") -> str:
    """The "why?" of one event (:func:`presentation.why.why_view` ``w``): the event's line, the
    state before it (score, frames, ball on, reds, break, who was at the table), and each rule it
    cites with the article's short title and words verbatim (each "Art." opens the whole
    article). Drawn alike by the tablet (online and offline) and the public page
    ``/matches/<id>/why/<seq>/``."""
    lang = "en" if lang == "en" else "pt"
    b = w["before"]
    score = " × ".join(f"{name} {pts}" for name, pts in b["scores"])

    def fact(key, value):
        return _tag("div", None, _tag("dt", None, _text(word(key, lang))) + _tag("dd", None, _text(value)))

    facts = (fact("frame", f"{b['frame']} ({word('frames', lang)}: {b['frames'][0]}–{b['frames'][1]})")
             + fact("score", score) + fact("decides" if b.get("decision") else "at_table", b["at_table"])
             + fact("ball_on", b["ball_on"]) + fact("reds", b["reds"]) + fact("break", b["break"]))
    rules = "".join(_tag("li", None, _tag("p", {"class": "why-rule-head"},
                                          _tag("span", {"class": "art", "data-art": r["ref"], "role": "button", "tabindex": "0"},
                                               _text(f"Art. {r['ref']}")) + " — " + _text(r["title"]))
                         + _tag("blockquote", {"class": "why-words", "lang": "pt-br"}, _text(r["words"])))
                    for r in w["rules"])
    return _tag("div", {"class": "rule-panel why-panel", "data-seq": w["seq"]},
                _tag("p", {"class": "rule-head"}, _tag("b", None, _text(word("why", lang, seq=w["seq"]))))
                + _tag("p", {"class": "why-event"}, _cited(w["description"]))
                + _tag("h3", None, _text(word("before", lang))) + _tag("dl", {"class": "why-before"}, facts)
                + _tag("h3", None, _text(word("rule", lang)))
                + (_tag("ol", {"class": "why-rules"}, rules) if rules else _tag("p", None, _text(word("no_rule", lang))))
                + _tag("p", {"class": "rule-close"}, _text(word("close", lang))))


def why_missing(seq) -> str:
    """The "why?" of an event the log does not have: the refusal in Portuguese and English."""
    n = _text(str(seq)[:12])
    return _tag("div", {"class": "rule-panel rule-missing", "role": "alert"},
                _tag("p", None, f"O registro deste jogo não tem o evento nº {n} / "
                     + _tag("span", {"lang": "en"}, f"This match's log has no event no. {n}"))
                + _tag("p", {"class": "rule-close"}, _text(word("close", "pt"))))
