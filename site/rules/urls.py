from django.urls import path

from rules import views

app_name = "rules"

urlpatterns = [
    path("", views.index, name="index"),
    path("<slug:game>/", views.game, name="game"),
]
