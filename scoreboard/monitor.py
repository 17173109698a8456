"""``GET /api/live/``: this worker's live-path counters, for benchmarks and operators.

Off unless ``SINUCA_LIVE_STATS=1`` (404 otherwise): it tells nothing secret, but there is no
reason to publish a server's insides by default.
"""
from __future__ import annotations

import os
import resource

from django.conf import settings
from django.http import Http404, HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from . import live
from .hub import hub


def _rss_kb() -> int:
    """Resident memory of this process now, in KiB (Linux /proc; else the peak)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


@require_GET
def live_stats(request: HttpRequest) -> JsonResponse:
    """``{"pid", "rss_kb", "sockets", "renders", "messages", "frames_built", "sends",
    "last_fanout_ms"}``: renders count changes rendered by this worker (once per change, all
    page kinds and languages at once), frames_built the websocket frames built from them."""
    if not getattr(settings, "LIVE_STATS", False):
        raise Http404
    return JsonResponse({"pid": os.getpid(), "rss_kb": _rss_kb(), "sockets": hub.count(),
                         "renders": live.RENDERS["changes"], **hub.stats})
