"""The referee tablet: log-in by signed link or PIN, the tap buttons, the foul dialog with its
preview, and the Art. 28 question. Every tap goes through the log service; the answer is the
tablet's live fragments for the change, rendered once for every screen.
"""
from __future__ import annotations

import json
import secrets
import uuid

from django.conf import settings
from django.core import signing
from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe, require_POST

import sinuca
from presentation import explain, referee_html
from presentation import tablet_board, tablet_foul
from presentation.tablet_foul import COMMON_KINDS as COMMON_FOUL_KINDS

from ..core import log, tablets
from ..http import capacity, errors
from ..core.credentials import (CODE_PARAM, credential_for_code, login_session, referee_label,
                                session_may_referee)
from ..core.i18n import both, both_texts, error_text, pick
from ..core.models import Match, RefereeCredential
from ..live import render as live
from .screens import lang_code, page


TABLET_OF = "tablet_of"
"""Session key: ``{match id: table id}``, the matches this session's tablet opened through a
table's page (PIN); their scoring page follows that table (``static/scoreboard/follow.js``)."""


def small_int(value: str) -> int | None:
    """A form field's non-negative integer: ASCII digits only (``"²".isdigit()`` is true, and
    ``int("²")`` raises), or None."""
    value = (value or "").strip()
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 9 else None


# PIN guessing, counted in the shared cache (Redis with several workers, so every worker counts
# the same tries and a restart forgets none): 10 tries a minute per client address (resolved
# from trusted proxies only, http/clients.py), and 30 an hour per match (or table) from all
# addresses together: finding a 6-digit PIN then takes 10^6 / 2 / 30 h = 1.9 years on average,
# from any number of addresses. While a match is limited, the right PIN from an unknown device
# gets 429 too; the referee is not kept out: a tablet already logged in keeps scoring, a device
# that once logged in to that match or table has an allowance of its own (below), and the link
# / QR code (a single-use code, a new one on every view of the match's admin page) logs a tablet
# in whatever the PIN counters say.
PIN_RATE_PER_ADDRESS = getattr(settings, "PIN_RATE_PER_ADDRESS", "10/m")
PIN_RATE_PER_TARGET = getattr(settings, "PIN_RATE_PER_TARGET", "30/h")
DEVICE_COOKIE = "sinuca_device"
# Marks the page of a logged-in tablet: the only answer the tablet's service worker keeps for
# offline use (a PIN form or a refusal drops its copy).
TABLET_HEADER = "X-Sinuca-Tablet"
DEVICE_SALT = "scoreboard.pages.device"
DEVICE_MAX_AGE = 30 * 24 * 3600
DEVICE_TARGETS = 50  # matches and tables a device remembers


def _device(request: HttpRequest) -> dict:
    try:
        data = signing.loads(request.COOKIES.get(DEVICE_COOKIE, ""), salt=DEVICE_SALT,
                             max_age=DEVICE_MAX_AGE)
    except signing.BadSignature:
        return {}
    return data if isinstance(data, dict) and isinstance(data.get("t"), list) else {}


def remember_device(request: HttpRequest, response: HttpResponse, target: str) -> HttpResponse:
    """Mark this device (a signed cookie) as one that logged in to ``target`` (``match:<id>``
    or ``table:<id>``), so that its later PIN tries there get their own allowance."""
    data = _device(request)
    targets = [t for t in data.get("t", []) if t != target] + [target]
    value = {"d": data.get("d") or secrets.token_urlsafe(12), "t": targets[-DEVICE_TARGETS:]}
    response.set_cookie(DEVICE_COOKIE, signing.dumps(value, salt=DEVICE_SALT), max_age=DEVICE_MAX_AGE,
                        httponly=True, samesite="Lax", secure=settings.SESSION_COOKIE_SECURE)
    return response


def pin_limited(request: HttpRequest, target: str) -> bool:
    """Count one PIN try at ``target`` and say whether it must be refused (429).

    Every try counts against its client address. A try from a device that once logged in to
    ``target`` counts against that device's own allowance at the target's rate; any other try
    against the target's shared one, each over a sliding window (any minute, any hour:
    :func:`~scoreboard.http.capacity.sliding_limited`). So an attacker who exhausts the target's allowance (from any
    number of addresses) does not lock out the referee's device, and that device cannot be
    used to guess faster than anyone else.
    """
    by_address = capacity.sliding_limited(request, "pin:address", capacity.client_ip(request), PIN_RATE_PER_ADDRESS)
    device = _device(request)
    bucket = f"{target}:device:{device['d']}" if target in device.get("t", ()) else target
    by_target = capacity.sliding_limited(request, "pin:target", bucket, PIN_RATE_PER_TARGET)
    return by_address or by_target


def referee(request: HttpRequest, match_id: int) -> HttpResponse:
    """The referee tablet. ``?c=<login code>`` logs the tablet in once and redirects to the clean
    URL; without a session, a PIN form (limited: :func:`pin_limited`)."""
    match = get_object_or_404(Match, pk=match_id)
    target = f"match:{match_id}"
    error, status = "", 200
    if CODE_PARAM in request.GET:
        cred = credential_for_code(request.GET[CODE_PARAM], match_id)
        if cred is not None:
            login_session(request.session, cred)
            return remember_device(request, redirect("referee", match_id=match_id), target)
        if not session_may_referee(request.session, request.user, match_id):
            error = _("Este link já foi usado ou expirou. Peça um novo QR code ou use o PIN.")
    if session_may_referee(request.session, request.user, match_id):
        table_id = request.session.get(TABLET_OF, {}).get(str(match_id))
        follow = ({"url": f"/ws/boards/?view=table-{int(table_id)}", "go": reverse("table_referee", args=[table_id])}
                  if table_id else None)
        resp = page(request, match_id, "referee", "scoreboard/referee.html",
                    foul_kinds=sinuca.FOUL_KINDS, table_follow=follow,
                    held_html=mark_safe(tablets.held_fragment(tablets.held(match_id))))  # noqa: S308 - escaped there
        resp[TABLET_HEADER] = "1"  # the service worker keeps only this page (pages/tablet.py)
        return resp
    if request.method == "POST":
        pin = request.POST.get("pin", "").strip()
        status = 401
        if pin_limited(request, target):
            status = 429
            error = _("Muitas tentativas. Aguarde um minuto ou use o link (QR code) do árbitro.")
        else:
            for cred in RefereeCredential.objects.filter(match=match, revoked=False):
                if cred.check_pin(pin):
                    login_session(request.session, cred)
                    return remember_device(request, redirect("referee", match_id=match_id), target)
            error = _("PIN incorreto.")
    resp = render(request, "scoreboard/referee_login.html", {"match": match, "error": error},
                  status=status)
    if status == 429:
        resp["Retry-After"] = "60"
    return resp


def referee_required(view):
    """Only who may score this match (``access``: ``match.score``) may use the tablet's actions."""

    def wrapped(request: HttpRequest, match_id: int, *args, **kwargs):
        if not session_may_referee(request.session, request.user, match_id):
            return HttpResponseForbidden(_("Entre como árbitro deste jogo."))
        return view(request, match_id, *args, **kwargs)

    wrapped.__doc__ = view.__doc__
    wrapped.__name__ = view.__name__
    return wrapped


def message_fragment(text: str = "", level: str = "info") -> str:
    """The tablet's message box, swapped out-of-band."""
    return render_to_string("scoreboard/referee.html#message", {"message": text, "level": level})


def submit(request: HttpRequest, match_id: int, event) -> HttpResponse:
    """Append ``event`` for the tablet and answer with its fragments and a message.

    The answer is the referee's live fragments of the :class:`~scoreboard.core.log.Change` (the
    same text the broadcast sends, rendered once for every screen), so the tap shows at once even
    before the socket's copy arrives: one lock and one read per tap. A rejected event gets 422
    and its reason, a stale screen 409; both, and a repeated key, answer the current fragments.
    """
    expected = request.POST.get("expected_seq", "")
    key = request.POST.get("key") or uuid.uuid4().hex
    if (expected and small_int(expected) is None) or not log.valid_key(key):
        return HttpResponse(message_fragment(both("Toque inválido"), "error"), status=errors.status_of("bad_request"))
    lang = lang_code()
    view_key = live.payload_key("referee", lang)
    try:
        change = log.append_event(
            match_id, event, expected_seq=small_int(expected), key=key,
            entered_by=referee_label(request.session, request.user, match_id),
            # this tablet's live socket draws the answer below, not the same fragment pushed again
            origin=request.headers.get("X-Sinuca-Socket", "")[:40])
    except log.Conflict as e:
        status, level = errors.refusal(e).status, "warn"
        msg = _("O placar mudou em outro aparelho; confira a tela e toque de novo.")
    except log.KeyReused as e:
        status, level = errors.refusal(e).status, "error"
        msg = both("Esta chave de toque já foi usada para outro evento; toque de novo")
    except sinuca.SinucaError as e:
        status, level = errors.refusal(e).status, "error"
        msg = error_text(e)
    else:
        msg = tablet_message(change)
        if not change.repeated:
            return HttpResponse(live.payload_for(change, view_key) + message_fragment(msg), status=200)
        status, level = 200, "info"
    text = live.connect_payload(match_id, view_key)[1]
    return HttpResponse(text + message_fragment(msg, level), status=status)


def tablet_message(change: log.Change) -> str:
    """The message bar's line for an accepted tap (:func:`presentation.explain.tap_message`: the
    words the tablet's own engine shows offline)."""
    return pick(explain.tap_message(change.event.get("type"), change.description, change.state,
                                    change.options, change.match.player_names))


@require_POST
@capacity.match_writer  # before the session's query: a flood of taps holds no connection
@referee_required
def referee_event(request: HttpRequest, match_id: int) -> HttpResponse:
    """A tap on one of the tablet's buttons: the button carries the event as JSON."""
    try:
        event = json.loads(request.POST.get("event", ""))
    except (ValueError, RecursionError):
        return HttpResponse(message_fragment(both("Evento inválido"), "error"), status=errors.status_of("bad_request"))
    return submit(request, match_id, event)


COMMON_KINDS = COMMON_FOUL_KINDS
"""The foul kinds a referee calls most, one tap each in the foul dialog (the rest one tap further):
the same as the tablet's own dialog draws offline (:data:`presentation.tablet_foul.COMMON_KINDS`)."""


def form_fields(post) -> dict:
    """The foul dialog's POST as ``{name: [values]}``, what the one parser of the foul form
    (:func:`presentation.tablet_foul.foul_event`) reads, here and on the tablet."""
    return {name: post.getlist(name) for name in post}


def foul_event(post) -> dict:
    """The foul event described by the foul dialog's fields (contract section 3), parsed by
    :func:`presentation.tablet_foul.foul_event`. Raises :class:`presentation.tablet_foul.FormError`
    for a number field that is not one (``ball=4²``: once dropped, it recorded a plain 4-point foul)."""
    return tablet_foul.foul_event(form_fields(post))


def nomination_missing(match_id: int, post, event: dict) -> bool:
    """The foul's penalty depends on the colour aimed at (Art. 19, 40.1.a) and the dialog has not
    said which one, nor "não cantou" (Art. 48.3): the penalty is not known yet. The engine says
    when a colour is needed (not for a fixed 7-point foul, Art. 41-43, 48, 49, nor for the seated
    player's, Art. 49), as on the tablet's own dialog."""
    answer = tablet_foul.nomination_answer(form_fields(post))
    return log.with_engine(match_id, lambda m, seq, engine: tablet_foul.nomination_missing(engine, event, answer))


def bad_field(e: "tablet_foul.FormError") -> HttpResponse:
    """The 400 answer to a foul-form field that is not a number (nothing stored)."""
    return HttpResponse(message_fragment(both_texts(e.message), "error"), status=errors.status_of("bad_request"))


def tablet_urls(match) -> dict:
    """Where the tablet's controls post (the renderer writes them into the page; the tablet's
    engine is given the same in its settings)."""
    pk = match.pk
    urls = {"event": reverse("referee_event", args=[pk]), "foul": reverse("foul_dialog", args=[pk]),
            "foul_preview": reverse("foul_preview", args=[pk]), "foul_submit": reverse("foul_submit", args=[pk]),
            "art28": reverse("art28", args=[pk])}
    if getattr(match, "table_id", None):
        urls["next_match"] = reverse("table_referee", args=[match.table_id])
    return urls


def region_html(match, seq: int, state: dict, options: dict, log_lines: list, undo_what, lang: str) -> str:
    """The tablet's board and controls at ``seq``, drawn by the one renderer from the engine's
    tablet view (:func:`presentation.tablet_board.view_of`, the state and ``core.log.screen_options``),
    as the tablet's in-browser engine draws them."""
    what = undo_what.get(lang) if isinstance(undo_what, dict) else undo_what
    lines = [{**line, "description": line["description"].get(lang) if isinstance(line["description"], dict)
              else line["description"]} for line in log_lines]
    view = tablet_board.view_of(match.config, state, options, lang, what, log=lines,
                                urls=tablet_urls(match), seq=seq)
    return referee_html.region(view, lang)


def sinuca_lang() -> str:
    """The engine's language code of the active language ("pt" or "en")."""
    return "en" if lang_code().startswith("en") else "pt"


@require_safe
@referee_required
def foul_dialog(request: HttpRequest, match_id: int) -> HttpResponse:
    """The foul dialog's form for the table as it lies now, with its first preview: the one
    renderer's HTML (:func:`presentation.referee_html.foul_dialog`), as the tablet's engine
    draws it offline."""
    art28 = request.session.get(f"art28:{match_id}")
    # the tablet's own record of its "Sim" (?art28=<seq>, referee.js): the session's copy is
    # written by the Art. 28 request, which a foul tapped a moment later could overtake
    told = request.GET.get("art28", "")
    lang = sinuca_lang()

    def draw(m, seq, engine):
        # the Art. 28 answer holds for the stroke it was given for (the seq), for no later one
        declared = bool(art28 and art28[0] == seq and art28[1]) or told == str(seq)
        form = tablet_foul.foul_form(engine, lang, declared)
        first = tablet_foul.preview_texts(engine, tablet_foul.foul_event(tablet_foul.initial_fields(form)), lang,
                                          "" if form["needs_nomination"] else None)
        return referee_html.foul_dialog(form, first, tablet_urls(m), seq)

    return HttpResponse(log.with_engine(match_id, draw))


@require_POST
@referee_required
def foul_preview(request: HttpRequest, match_id: int) -> HttpResponse:
    """What the foul in the dialog would do: penalty, receiver, article, whether retorno is
    possible and why not, whether it ends the frame or match (asked of the engine); while the
    colour aimed at is not said, only that question (the renderer's lines, as on the tablet)."""
    try:
        event = foul_event(request.POST)
    except tablet_foul.FormError as e:
        return bad_field(e)
    answer = tablet_foul.nomination_answer(form_fields(request.POST))
    lang = sinuca_lang()
    p = log.with_engine(match_id, lambda m, seq, engine: tablet_foul.preview_texts(engine, event, lang, answer))
    return HttpResponse(referee_html.foul_preview(p))


@require_POST
@capacity.match_writer  # before the session's query: a flood of taps holds no connection
@referee_required
def foul_submit(request: HttpRequest, match_id: int) -> HttpResponse:
    """Record the foul described by the dialog (400 and nothing stored for a bad field)."""
    try:
        event = foul_event(request.POST)
    except tablet_foul.FormError as e:
        return bad_field(e)
    if nomination_missing(match_id, request.POST, event):
        return HttpResponse(message_fragment(both("Diga qual cor foi visada (Art. 19), ou “não cantou” (Art. 48.3): nada foi registrado"), "error"), status=errors.status_of("bad_request"))
    return submit(request, match_id, event)




ART28_STALE = {"pt": "Esta resposta ao Art. 28 era para um lance já jogado: nada foi registrado; responda de novo para o lance atual",
               "en": "This Art. 28 answer was for a stroke already played: nothing was recorded; answer again for the current stroke"}


@require_POST
@referee_required
def art28(request: HttpRequest, match_id: int) -> HttpResponse:
    """Record the referee's answer to the Art. 28 question for the stroke about to be played.

    The engine has no event for it: the answer lives in this tablet's session under the seq of
    the board it was given on (the form's ``expected_seq``) and pre-marks a foul of that stroke
    as aggravated (Art. 27, 44); any event after it (a stroke, a decision, an undo) clears it,
    even when the position looks the same again. An answer for a board that has moved on (a
    stale ``expected_seq``) is refused with 409 and nothing is kept.
    """
    yes = request.POST.get("answer") == "yes"
    expected = request.POST.get("expected_seq", "")
    snap = log.snapshot(match_id)
    if expected and small_int(expected) != snap.seq:
        return HttpResponse(message_fragment(both_texts(ART28_STALE), "warn"), status=errors.status_of("conflict"))
    request.session[f"art28:{match_id}"] = [snap.seq, yes]
    msg = (_("Art. 28: SIM, há sinuca agravada. Uma falta agora é falta técnica agravada.") if yes
           else _("Art. 28: NÃO há sinuca agravada."))
    return HttpResponse(message_fragment(msg, "warn" if yes else "info"))
