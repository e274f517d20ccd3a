from django.urls import path

from ratings import views

app_name = "ratings"

urlpatterns = [
    path("", views.boards, name="leaderboard"),
    path("<str:game>/", views.board, name="game"),
]
