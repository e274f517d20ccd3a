from django.urls import path

from lobby import views

app_name = "lobby"

urlpatterns = [
    path("", views.play, name="play"),
    path("seeks/", views.seek_create, name="seek_create"),
    path("seeks/<int:seek_id>/cancel/", views.seek_cancel, name="seek_cancel"),
    path("seeks/<int:seek_id>/accept/", views.seek_accept, name="seek_accept"),
    path("challenges/", views.challenges, name="challenges"),
    path("challenges/new/", views.challenge_create, name="challenge_create"),
    path("challenges/<int:challenge_id>/accept/", views.challenge_accept, name="challenge_accept"),
    path("challenges/<int:challenge_id>/decline/", views.challenge_decline, name="challenge_decline"),
    path("challenges/<int:challenge_id>/withdraw/", views.challenge_withdraw,
         name="challenge_withdraw"),
]
