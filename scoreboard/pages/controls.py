"""A table's stream controls for its streamer: ``/tables/<id>/controls/``.

A logged-in user with the streamer role on the table (``core.access``, rule ``overlay.control``),
or the superuser, shows and hides the overlay's score bar, statistics and rule words and each stream graphic
(ticker, sponsors, the cards) from a page, with no token: the same switches a Stream Deck sends
to ``/api/tables/<id>/overlay/`` with the table's overlay token, stored by the same core
(``core.graphics.control``) and pushed to every overlay and graphics page of the table.
"""
from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_http_methods

from ..core import access, graphics, overlay
from ..core.models import Table
from ..core.tables import table_now
from ..http.guard import required

LABELS = {
    "bar": _("Placar"), "stats": _("Estatísticas"), "words": _("Palavras da regra nos pop-ups"),
    "ticker": _("Letreiro das outras mesas"),
    "sponsors": _("Patrocínio"), "next": _("Próximo jogo"), "holding": _("Voltamos já"),
    "intro": _("Apresentação do jogador"), "h2h": _("Confronto direto"), "bracket": _("Chave"),
    "group": _("Grupo"),
}
"""Each switch's name on the page, in the order shown: the overlay's three, the bars, the cards."""


@required("overlay.control", "table_id", lambda pk: access.Overlay(pk, None))
@require_http_methods(["GET", "HEAD", "POST"])
def table_controls(request: HttpRequest, table_id: int) -> HttpResponse:
    """``/tables/<id>/controls/``: every switch of the table with its state and a button to show
    or hide it; ``POST`` (the page's forms, with its CSRF token) sets what it names, as the
    overlay control endpoint takes it (``bar=show``, ``ticker=hide``, ``countdown=14:30``,
    ``player=b``), then shows the page again (303). A bad value: 400, the page with the
    refusal in Portuguese and English, nothing changed."""
    table = get_object_or_404(Table, pk=table_id)
    refusal, status = None, 200
    if request.method == "POST":
        wanted = {k: v for k, v in request.POST.items()
                  if k in overlay.NAMES + graphics.SWITCHES + graphics.OPTIONS}
        try:
            if not wanted:
                raise graphics.GraphicsError("Nenhum controle informado", "No control given")
            graphics.control(table, wanted)
        except graphics.GraphicsError as e:
            refusal, status = f"{e.pt} / {e.en}", 400
        else:
            return _see_other(request.path)
    table.refresh_from_db()
    now = table_now(table)
    match = now.current or now.next or now.last
    on = {**graphics.current(table),
          **(overlay.current(table) if match is None else {n: getattr(match, f"overlay_{n}") for n in overlay.NAMES})}
    rows = [{"name": n, "label": LABELS[n], "on": bool(on[n]), "card": n in graphics.CARDS} for n in LABELS]
    ctx = {"table": table, "match": match, "rows": rows, "countdown": on["countdown"], "player": on["player"],
           "refusal": refusal}
    return render(request, "scoreboard/controls.html", ctx, status=status)


def _see_other(path: str) -> HttpResponse:
    """303 to ``path``: the page again, so a reload does not post the form twice."""
    resp = HttpResponse(status=303)
    resp["Location"] = path
    return resp
