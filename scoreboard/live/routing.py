"""Websocket routes."""
from django.urls import path

from .sockets import LiveSocket, PerClientLimit

websocket_urlpatterns = [
    path("ws/matches/<int:match_id>/", PerClientLimit(LiveSocket())),
    path("ws/matches/<int:match_id>/feed/", PerClientLimit(LiveSocket(feed=True))),
]
