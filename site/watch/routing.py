from django.urls import path

from watch.consumers import WatchConsumer

websocket_urlpatterns = [
    path("ws/watch/", WatchConsumer.as_asgi()),
]
