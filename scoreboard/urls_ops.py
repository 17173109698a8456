"""Routes of the event-day pages (venue, tables, statistics, súmula, export, display options).

Included by ``urls.py`` before its own routes, so ``/`` is the venue.
"""
from django.urls import path

from . import exports, venue

urlpatterns = [
    path("", venue.venue, name="venue"),
    path("tv/", venue.jumbotron, name="jumbotron"),
    path("display/", venue.display_guide, name="display_guide"),
    path("tables/<int:table_id>/tv/", venue.table_tv, name="table_tv"),
    path("tables/<int:table_id>/overlay/", venue.table_overlay, name="table_overlay"),
    path("tables/<int:table_id>/referee/", venue.table_referee, name="table_referee"),
    path("tables/<int:table_id>/now/", venue.table_now, name="table_now"),
    path("matches/<int:match_id>/", venue.match_page, name="match"),
    path("matches/<int:match_id>/clock/", venue.shot_clock, name="shot_clock"),
    path("matches/<int:match_id>/sumula.pdf", exports.sumula_pdf, name="sumula_pdf"),
    path("matches/<int:match_id>/sumula.csv", exports.sumula_csv, name="sumula_csv"),
    path("api/matches/<int:match_id>/export/", exports.export_json, name="api_export"),
]
