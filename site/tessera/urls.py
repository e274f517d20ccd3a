from django.contrib import admin
from django.urls import include, path

from tessera import views

urlpatterns = [
    path("", views.home, name="home"),
    path("", include("accounts.urls")),
    path("rules/", include("rules.urls")),
    path("", include("play.urls")),
    path("play/computer/", include("bots.urls")),
    path("play/", include("lobby.urls")),
    path("watch/", include("watch.urls")),
    path("tournaments/", include("tournaments.urls")),
    path("", include("archive.urls")),
    path("", include("analysis.urls")),
    path("", include("explorer.urls")),
    path("leaderboard/", include("ratings.urls")),
    path("", include("learn.urls")),
    path("", include("frontend.urls")),
    path("", include("api.urls")),
    path("admin/", admin.site.urls),
    path("", include("ops.urls")),
]
