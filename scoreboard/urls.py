"""URL routes: the venue and event-day pages, a match's screens and referee tablet, the súmula,
the JSON API and the admin."""
from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path
from django.views.static import serve

from . import api
from .pages import controls, desk, event, feeds, public, referee, rules, screens, sheets, tablet, venue

# An unexpected failure on the API still answers its JSON error shape; load answers 503 busy.
handler500 = "scoreboard.pages.errors.server_error"
handler404 = "scoreboard.pages.errors.not_found"

urlpatterns = [
    # the venue and its tables
    path("", venue.venue, name="venue"),
    path("tv/", venue.jumbotron, name="jumbotron"),
    path("display/", venue.display_guide, name="display_guide"),
    path("favicon.ico", venue.favicon, name="favicon"),
    path("tables/<int:table_id>/tv/", venue.table_tv, name="table_tv"),
    path("tables/<int:table_id>/overlay/", venue.table_overlay, name="table_overlay"),
    path("tables/<int:table_id>/graphics/", venue.table_graphics, name="table_graphics"),
    path("tables/<int:table_id>/referee/", venue.table_referee, name="table_referee"),
    path("tables/<int:table_id>/controls/", controls.table_controls, name="table_controls"),
    path("tables/<int:table_id>/now/", venue.table_now, name="table_now"),
    # feeds for broadcast tools (vMix data sources, OBS text sources)
    path("tables/feed.json", feeds.venue_feed, {"fmt": "json"}, name="venue_feed_json"),
    path("tables/feed.xml", feeds.venue_feed, {"fmt": "xml"}, name="venue_feed_xml"),
    path("tables/<int:table_id>/feed.json", feeds.table_feed, {"fmt": "json"}, name="table_feed_json"),
    path("tables/<int:table_id>/feed.xml", feeds.table_feed, {"fmt": "xml"}, name="table_feed_xml"),
    path("tables/<int:table_id>/feed/<str:field>.txt", feeds.table_feed, {"fmt": "txt"}, name="table_feed_txt"),
    path("matches/<int:match_id>/feed.json", feeds.match_feed, {"fmt": "json"}, name="match_feed_json"),
    path("matches/<int:match_id>/feed.xml", feeds.match_feed, {"fmt": "xml"}, name="match_feed_xml"),
    path("matches/<int:match_id>/feed/<str:field>.txt", feeds.match_feed, {"fmt": "txt"}, name="match_feed_txt"),
    # one match: statistics, shot clock, súmula, screens
    path("matches/<int:match_id>/", venue.match_page, name="match"),
    path("matches/<int:match_id>/clock/", venue.shot_clock, name="shot_clock"),
    path("matches/<int:match_id>/sumula.pdf", sheets.sumula_pdf, name="sumula_pdf"),
    path("matches/<int:match_id>/sumula.csv", sheets.sumula_csv, name="sumula_csv"),
    path("matches/<int:match_id>/tv/", screens.tv, name="tv"),
    path("matches/<int:match_id>/overlay/", screens.overlay, name="overlay"),
    path("matches/<int:match_id>/live/<str:view>/", screens.live_fragments, name="live_fragments"),
    # the referee tablet
    path("matches/<int:match_id>/referee/", tablet.isolated(referee.referee), name="referee"),
    path("matches/<int:match_id>/referee/event/", referee.referee_event, name="referee_event"),
    path("matches/<int:match_id>/referee/foul/", referee.foul_dialog, name="foul_dialog"),
    path("matches/<int:match_id>/referee/foul/preview/", referee.foul_preview, name="foul_preview"),
    path("matches/<int:match_id>/referee/foul/submit/", referee.foul_submit, name="foul_submit"),
    path("matches/<int:match_id>/referee/art28/", referee.art28, name="art28"),
    # the tablet's in-browser engine: the sinuca package as a zip, the offline service worker
    path("tablet/engine/<str:digest>.zip", tablet.engine_archive, name="tablet_engine_zip"),
    path("matches/tablet-sw.js", tablet.service_worker, name="tablet_service_worker"),
    # a competition for spectators' phones: the event hub and a page per player (pushed live)
    path("competitions/<int:comp_id>/", event.hub, name="event_hub"),
    path("competitions/<int:comp_id>/players/<int:entry>/", event.player, name="event_player"),
    # the federation's public site: players, careers, head-to-heads, rankings, calendar, clubs
    path("players/", public.players_page, name="public_players"),
    path("players/<str:key>/", public.player_page, name="public_player"),
    path("players/<str:a>/h2h/<str:b>/", public.h2h_page, name="public_h2h"),
    path("seasons/<int:season_id>/", public.season_page, name="public_season"),
    path("calendar/", public.calendar_page, name="public_calendar"),
    path("live/", public.inplay_page, name="public_live"),
    path("clubs/", public.clubs_page, name="public_clubs"),
    path("results/", public.results_page, name="public_results"),
    # a competition's desk (staff) and exports
    path("desk/<int:comp_id>/", desk.desk, name="desk"),
    path("desk/<int:comp_id>/action/", desk.desk_action, name="desk_action"),
    path("desk/<int:comp_id>/results.csv", desk.results_csv, name="desk_results_csv"),
    path("desk/<int:comp_id>/standings.csv", desk.standings_csv, name="desk_standings_csv"),
    path("desk/<int:comp_id>/bracket.pdf", desk.bracket_pdf, name="desk_bracket_pdf"),
    # the federation's staff: a protest's overruling of a venue's result
    path("federation/matches/<int:match_id>/overrule/", desk.overrule, name="federation_overrule"),
    # the JSON API
    path("api/matches/<int:match_id>/", api.match_detail, name="api_match"),
    path("api/matches/<int:match_id>/events/", api.match_events, name="api_events"),
    path("api/matches/<int:match_id>/export/", api.export_json, name="api_export"),
    path("api/matches/<int:match_id>/overlay/", api.overlay_control, name="api_overlay"),
    path("api/tables/<int:table_id>/overlay/", api.overlay_control, name="api_table_overlay"),
    path("api/live/", api.live_stats, name="live_stats"),
    path("api/competitions/<int:comp_id>/", api.competition_detail, name="api_competition"),
    path("api/seasons/<int:season_id>/", api.season_detail, name="api_season"),
    path("api/players/", api.players_search, name="api_players"),
    path("api/clubs/", api.clubs_list, name="api_clubs"),
    path("api/players/<str:key>/career/", api.player_career, name="api_player_career"),
    path("api/players/<str:a>/h2h/<str:b>/", api.player_h2h, name="api_player_h2h"),
    path("api/seasons/<int:season_id>/ranking/", api.season_ranking, name="api_season_ranking"),
    path("api/competitions/<int:comp_id>/actions/", api.competition_action, name="api_competition_action"),
    # a federation: its venues send their records and pull the registry (a venue's token)
    path("api/federation/records/", api.federation_records, name="api_federation_records"),
    path("api/federation/registry/", api.federation_registry, name="api_federation_registry"),
    # the CBBS 2008 rules text, every article anchored for the screens' "Art. N" links
    path("api/rules/", api.rules_index, name="api_rules"),
    path("api/rules/<str:ref>/", api.rules_article, name="api_rules_article"),
    path("rules/", rules.rules_page, name="rules"),
    path("rules/<str:ref>/panel/", rules.rule_panel, name="rule_panel"),
    path("matches/<int:match_id>/why/<int:seq>/", rules.why, name="why"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
    # players' photos, uploaded in the admin (small files; nginx may serve MEDIA_ROOT instead)
    re_path(r"^media/(?P<path>(?:players|sponsors)/[\w.\-]+)$", lambda request, path: serve(request, path, settings.MEDIA_ROOT),
            name="media"),
]
