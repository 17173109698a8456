"""The referee tablet: log-in by signed link or PIN, the tap buttons, the foul dialog with its
preview, and the Art. 28 question. Every tap goes through the log service; the answer is the
tablet's live fragments for the change, rendered once for every screen.
"""
from __future__ import annotations

import json
import uuid

from django.http import HttpRequest, HttpResponse, HttpResponseForbidden
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST
from django_ratelimit.decorators import ratelimit

import sinuca

from ..core import log
from ..core.credentials import credential_for_link, login_session, referee_label, session_may_referee
from ..core.i18n import error_text, pick
from ..core.models import Match, RefereeCredential
from ..live import render as live
from .screens import lang_code, page


def small_int(value: str) -> int | None:
    """A form field's non-negative integer: ASCII digits only (``"²".isdigit()`` is true, and
    ``int("²")`` raises), or None."""
    value = (value or "").strip()
    return int(value) if value.isascii() and value.isdigit() and len(value) <= 9 else None


def pin_target(group: str, request: HttpRequest) -> str:
    """The rate-limit key of PIN tries at one match, whatever address they come from."""
    return f"match:{request.resolver_match.kwargs.get('match_id')}"


# PIN guessing: 10 tries a minute per address, and 30 an hour per match from all addresses
# together (a 6-digit PIN then takes decades to find). While limited, even the right PIN is
# refused with 429; the signed link (QR code) still logs a tablet in.
@ratelimit(key="ip", rate="10/m", method="POST", block=False)
@ratelimit(key=pin_target, rate="30/h", method="POST", block=False)
def referee(request: HttpRequest, match_id: int) -> HttpResponse:
    """The referee tablet. ``?t=<signed link>`` logs the tablet in; without a session, a PIN form."""
    match = get_object_or_404(Match, pk=match_id)
    if "t" in request.GET:
        cred = credential_for_link(request.GET["t"], match_id)
        if cred is not None:
            login_session(request.session, cred)
            return redirect("referee", match_id=match_id)
    if session_may_referee(request.session, request.user, match_id):
        return page(request, match_id, "referee", "scoreboard/referee.html",
                    foul_kinds=sinuca.FOUL_KINDS)
    error, status = "", 200
    if request.method == "POST":
        pin = request.POST.get("pin", "").strip()
        status = 401
        if getattr(request, "limited", False):
            status = 429
            error = _("Muitas tentativas. Aguarde um minuto ou use o link (QR code) do árbitro.")
        else:
            for cred in RefereeCredential.objects.filter(match=match, revoked=False):
                if cred.check_pin(pin):
                    login_session(request.session, cred)
                    return redirect("referee", match_id=match_id)
            error = _("PIN incorreto.")
    resp = render(request, "scoreboard/referee_login.html", {"match": match, "error": error},
                  status=status)
    if status == 429:
        resp["Retry-After"] = "60"
    return resp


def referee_required(view):
    """Only this match's referee (session) or staff may use the tablet's actions."""

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
        return HttpResponse(message_fragment(_("Toque inválido / Invalid tap"), "error"), status=400)
    lang = lang_code()
    view_key = live.payload_key("referee", lang)
    try:
        change = log.append_event(
            match_id, event, expected_seq=small_int(expected), key=key,
            entered_by=referee_label(request.session, request.user, match_id))
    except log.Conflict:
        status, level = 409, "warn"
        msg = _("O placar mudou em outro aparelho; confira a tela e toque de novo.")
    except sinuca.SinucaError as e:
        status, level = 422, "error"
        msg = error_text(e)
    else:
        msg = pick(change.description)
        if not change.repeated:
            payloads = live.cached(match_id, change.seq) or live.render_change(change)
            return HttpResponse(payloads[view_key] + message_fragment(msg), status=200)
        status, level = 200, "info"
    text = live.connect_payload(match_id, view_key)[1]
    return HttpResponse(text + message_fragment(msg, level), status=status)


@require_POST
@referee_required
def referee_event(request: HttpRequest, match_id: int) -> HttpResponse:
    """A tap on one of the tablet's buttons: the button carries the event as JSON."""
    try:
        event = json.loads(request.POST.get("event", ""))
    except (ValueError, RecursionError):
        return HttpResponse(message_fragment(_("Evento inválido / Invalid event"), "error"), status=400)
    return submit(request, match_id, event)


def foul_event(post) -> dict:
    """The foul event described by the foul dialog's fields (contract section 3)."""
    ev: dict = {"type": "foul"}
    if post.get("kind"):
        ev["kind"] = post["kind"]

    def ball(name):
        return small_int(post.get(name, ""))

    for name in ("ball", "nominated", "free_ball", "player"):
        if (v := ball(name)) is not None:
            ev[name] = v
    reds = min(ball("potted_reds") or 0, 16)  # the engine refuses more than the table holds; no huge lists
    potted = [1] * reds + sorted(b for b in map(small_int, post.getlist("potted")) if b is not None)
    if potted:
        ev["potted"] = potted
    for flag in ("retorno", "snooker", "aggravated", "grave"):
        if post.get(flag):
            ev[flag] = True
    return ev


@require_GET
@referee_required
def foul_dialog(request: HttpRequest, match_id: int) -> HttpResponse:
    """The foul dialog's form, built for the table as it lies now."""
    snap = log.snapshot(match_id)
    art28 = request.session.get(f"art28:{match_id}")
    ctx = live.page_context(snap.match, snap.seq, snap.state, snap.options, [])
    ctx.update(foul_kinds=sinuca.FOUL_KINDS, lang=lang_code(),
               aggravated_declared=bool(art28 and art28[0] == snap.seq and art28[1]))
    return render(request, "scoreboard/referee.html#foul_form", ctx)


@require_POST
@referee_required
def foul_preview(request: HttpRequest, match_id: int) -> HttpResponse:
    """What the foul in the dialog would do: penalty, receiver, article, whether retorno is
    possible and why not, whether it ends the frame or match (asked of the engine)."""
    event = foul_event(request.POST)
    preview = log.with_engine(match_id, lambda m, seq, engine: engine.foul_preview(event))
    names = log.snapshot(match_id).match.player_names
    receiver = preview.get("receiver")
    return render(request, "scoreboard/referee.html#foul_preview",
                  {"p": preview, "receiver_name": names[receiver] if receiver in (0, 1) else "",
                   "lang": lang_code()})


@require_POST
@referee_required
def foul_submit(request: HttpRequest, match_id: int) -> HttpResponse:
    """Record the foul described by the dialog."""
    return submit(request, match_id, foul_event(request.POST))


@require_POST
@referee_required
def art28(request: HttpRequest, match_id: int) -> HttpResponse:
    """Record the referee's answer to the Art. 28 question for the current position.

    The engine has no event for it: the answer lives in this tablet's session and pre-marks the
    next foul as aggravated (Art. 27, 44) while the position (seq) is unchanged.
    """
    yes = request.POST.get("answer") == "yes"
    snap = log.snapshot(match_id)
    request.session[f"art28:{match_id}"] = [snap.seq, yes]
    msg = (_("Art. 28: SIM, há sinuca agravada. Uma falta agora é falta técnica agravada.") if yes
           else _("Art. 28: NÃO há sinuca agravada."))
    return HttpResponse(message_fragment(msg, "warn" if yes else "info"))
