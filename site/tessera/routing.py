"""Websocket routes of the whole site. Each app appends its own, e.g.
`*play.routing.websocket_urlpatterns`."""

from lobby import routing as lobby_routing
from play import routing as play_routing
from watch import routing as watch_routing

websocket_urlpatterns = [
    *play_routing.websocket_urlpatterns,
    *lobby_routing.websocket_urlpatterns,
    *watch_routing.websocket_urlpatterns,
]
