"""Websocket routes of the whole site. Each app appends its own, e.g.
`*play.routing.websocket_urlpatterns`."""

from django.urls import re_path

from live.sockets import NoSuchSocket
from lobby import routing as lobby_routing
from play import routing as play_routing
from tournaments import routing as tournaments_routing
from watch import routing as watch_routing

websocket_urlpatterns = [
    *play_routing.websocket_urlpatterns,
    *lobby_routing.websocket_urlpatterns,
    *watch_routing.websocket_urlpatterns,
    *tournaments_routing.websocket_urlpatterns,
    # Anything else (an unknown path, /ws/game/abc/) is refused at the handshake (HTTP 403),
    # not answered with a server error.
    re_path(r"", NoSuchSocket.as_asgi()),
]
