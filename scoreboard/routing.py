"""Websocket routes."""
from django.urls import path

from .consumers import MatchFeedConsumer, MatchStreamConsumer

websocket_urlpatterns = [
    path("ws/matches/<int:match_id>/", MatchStreamConsumer.as_asgi()),
    path("ws/matches/<int:match_id>/feed/", MatchFeedConsumer.as_asgi()),
]
