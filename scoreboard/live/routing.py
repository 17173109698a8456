"""Websocket routes."""
from django.urls import path

from .sockets import LiveSocket

websocket_urlpatterns = [
    path("ws/matches/<int:match_id>/", LiveSocket()),
    path("ws/matches/<int:match_id>/feed/", LiveSocket(feed=True)),
]
