from django.urls import path

from play import views

app_name = "play"

urlpatterns = [
    path("game/<int:game_id>/", views.game_page, name="game"),
    path("game/<int:game_id>/snapshot.json", views.game_snapshot, name="snapshot"),
    path("game/<int:game_id>/note/", views.save_note, name="note"),
    path("vacation/", views.vacation, name="vacation"),
]
