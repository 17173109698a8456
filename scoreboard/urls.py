"""URL routes of the pages and the JSON API."""
from django.contrib import admin
from django.urls import include, path

from . import api, monitor, views

urlpatterns = [
    path("", include("scoreboard.urls_ops")),  # venue, tables, statistics, súmula, export
    path("", views.home, name="home"),
    path("matches/<int:match_id>/tv/", views.tv, name="tv"),
    path("matches/<int:match_id>/overlay/", views.overlay, name="overlay"),
    path("matches/<int:match_id>/live/<str:view>/", views.live_fragments, name="live_fragments"),
    path("matches/<int:match_id>/referee/", views.referee, name="referee"),
    path("matches/<int:match_id>/referee/event/", views.referee_event, name="referee_event"),
    path("matches/<int:match_id>/referee/foul/", views.foul_dialog, name="foul_dialog"),
    path("matches/<int:match_id>/referee/foul/preview/", views.foul_preview, name="foul_preview"),
    path("matches/<int:match_id>/referee/foul/submit/", views.foul_submit, name="foul_submit"),
    path("matches/<int:match_id>/referee/art28/", views.art28, name="art28"),
    path("api/matches/<int:match_id>/", api.match_detail, name="api_match"),
    path("api/matches/<int:match_id>/events/", api.match_events, name="api_events"),
    path("api/live/", monitor.live_stats, name="live_stats"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
