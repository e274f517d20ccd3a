from django.urls import path

from watch import views

app_name = "watch"

urlpatterns = [
    path("", views.watch, name="index"),
]
