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
from .core.competitions import rearm_wakes_soon  # noqa: E402
from .live.render import warm_up  # noqa: E402
from .live.routing import websocket_urlpatterns  # noqa: E402

warm_up()


def _serving() -> bool:
    """True in a Daphne server process (``python -m daphne``, as ``scripts/run.sh`` and
    ``scripts/serve.py`` start it, or the ``daphne`` script); False when a test or a tool imports
    the application, whose database is not a venue's."""
    spec = getattr(sys.modules.get("__main__"), "__spec__", None)
    return (spec is not None and spec.name.split(".")[0] == "daphne") or os.path.basename(sys.argv[0]) == "daphne"


if _serving():
    # an oversized request line or cookie is answered 414/431 with a body, not a silent close
    install_oversize_answers()
    # the rest timers of the queue lived in the processes before this one (competitions.wake_at)
    rearm_wakes_soon()

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
