"""ASGI entry point: Django for HTTP (static files through whitenoise), Channels for websockets."""
import gc
import os
import sys

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "scoreboard.settings")
django_asgi_app = get_asgi_application()  # sets Django up before the sockets import models

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from .http.capacity import ScreenGate, WriterGate  # noqa: E402
from .http.clients import ClientAddressMiddleware, SameOriginMiddleware  # noqa: E402
from .http.oversize import install as install_oversize_answers  # noqa: E402
from .core.competitions import rearm_wakes  # noqa: E402
from .live.hub import hub  # noqa: E402
from .live.render import warm_up  # noqa: E402
from .live.routing import websocket_urlpatterns  # noqa: E402

warm_up()


def _serving() -> bool:
    """True in a Daphne server process (``python -m daphne``, as ``scripts/run.sh`` and
    ``scripts/serve.py`` start it, or the ``daphne`` script); False when a test or a tool imports
    the application, whose database is not a venue's."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return (spec is not None and spec.name.split(".")[0] == "daphne") or os.path.basename(sys.argv[0]) == "daphne"


class HubStarts:
    """ASGI wrapper of a serving process: its hub runs from the first connection on, sockets or
    none, since its once-a-second reconciliation also runs the competitions' due work
    (``competitions.run_due``) and its loop takes a result's effect out of the referee's request;
    its first job runs every competition's queue once (``competitions.rearm_wakes``: a table freed
    while no process ran)."""

    def __init__(self, app) -> None:
        self.app = app
        self.started = False

    async def __call__(self, scope, receive, send):
        if not self.started:
            self.started = True
            hub.subscription.ensure()
            hub.later(rearm_wakes)
        return await self.app(scope, receive, send)


_serve = _serving()
if _serve:
    # an oversized request line or cookie is answered 414/431 with a body, not a silent close
    install_oversize_answers()
    # a venue of a federation sends its outbox, and a server with webhook subscribers their
    # news, each from a thread that dies with the process (one sender per database)
    from .core import sync, webhooks  # noqa: E402

    sync.start_background()
    webhooks.start_background()

# Everything loaded so far lives as long as the process: keep it out of the cyclic collector's
# full passes, and collect the young generation less often. With thousands of sockets a full
# collection walked every connection's objects and stalled the event loop for 100+ ms.
gc.collect()
gc.freeze()
gc.set_threshold(50_000, 20, 100)

# The client's address from trusted proxies only, for Django, the sockets and the access log.
application = ClientAddressMiddleware(ProtocolTypeRouter({
    # A match's taps beyond MATCH_WRITERS at once are answered 429 before Django runs; screen
    # pages beyond READ_SLOTS at once wait in the event loop, not in a request thread.
    "http": WriterGate(ScreenGate(django_asgi_app)),
    # Origin must be this server (host and port) and an allowed host: other sites' pages, even
    # on another port of the same machine, cannot open sockets in a viewer's name.
    "websocket": SameOriginMiddleware(AuthMiddlewareStack(URLRouter(websocket_urlpatterns))),
}))
if _serve:
    application = HubStarts(application)
