from django.urls import path

from tournaments import views

app_name = "tournaments"

urlpatterns = [
    path("", views.index, name="index"),
    path("new/", views.create, name="create"),
    path("<int:tournament_id>/", views.event, name="event"),
    path("<int:tournament_id>/standings.json", views.standings, name="standings"),
    path("<int:tournament_id>/join/", views.join, name="join"),
    path("<int:tournament_id>/withdraw/", views.withdraw, name="withdraw"),
    path("<int:tournament_id>/pause/", views.pause, name="pause"),
    path("<int:tournament_id>/resume/", views.resume, name="resume"),
    path("<int:tournament_id>/cancel/", views.cancel, name="cancel"),
]
