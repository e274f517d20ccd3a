from django.urls import path

from lobby.consumers import LobbyConsumer, NotifyConsumer

websocket_urlpatterns = [
    path("ws/lobby/", LobbyConsumer.as_asgi()),
    path("ws/notify/", NotifyConsumer.as_asgi()),
]
