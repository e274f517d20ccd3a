from django.urls import path

from analysis import views

app_name = "analysis"

urlpatterns = [
    path("game/<int:game_id>/analysis.json", views.analysis, name="analysis"),
    path("game/<int:game_id>/hint.json", views.hint, name="hint"),
    path("analysis-board/<str:game>/hint.json", views.board_hint, name="board_hint"),
]
