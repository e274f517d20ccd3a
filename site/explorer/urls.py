from django.urls import path

from explorer import views

app_name = "explorer"

urlpatterns = [
    path("explorer/", views.index, name="index"),
    path("explorer/<str:game>/", views.node, name="node"),
    path("explorer/<str:game>/node.json", views.node_json, name="node_json"),
    path("analysis-board/<str:game>/", views.analysis_board, name="analysis"),
    path("analysis-board/<str:game>/position.json", views.analysis_json, name="analysis_json"),
]
