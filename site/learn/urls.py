from django.urls import path

from learn import views

app_name = "learn"

urlpatterns = [
    path("learn/", views.index, name="index"),
    path("learn/<slug:game>/<int:number>/", views.step, name="step"),
    path("puzzles/<slug:game>/", views.next_puzzle, name="puzzles"),
    path("puzzles/<slug:game>/<str:puzzle_id>/", views.puzzle, name="puzzle"),
]
