"""Websocket routes."""
from django.urls import path

from .sockets import BoardSocket, LiveSocket, PerClientLimit

websocket_urlpatterns = [
    path("ws/matches/<int:match_id>/", PerClientLimit(LiveSocket())),
    path("ws/matches/<int:match_id>/feed/", PerClientLimit(LiveSocket(feed=True))),
    path("ws/boards/", PerClientLimit(BoardSocket())),
]
