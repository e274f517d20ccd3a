from django.urls import path

from archive import views

app_name = "archive"

urlpatterns = [
    path("archive/", views.index, name="index"),
    path("game/<int:game_id>/position/<int:ply>.json", views.position_json, name="position"),
    path("game/<int:game_id>/position/<int:ply>.svg", views.position_svg, name="position_svg"),
    path("game/<int:game_id>/position/<int:ply>.png", views.position_png, name="position_png"),
    path("game/<int:game_id>/game.gif", views.game_gif, name="game_gif"),
    path("game/<int:game_id>/explore.json", views.explore, name="explore"),
    path("game/<int:game_id>/clocks.json", views.clocks_json, name="clocks"),
    path("game/<int:game_id>/record.txt", views.record_text, name="record_text"),
    path("game/<int:game_id>/record.json", views.record_json, name="record_json"),
]
