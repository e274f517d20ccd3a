from django.urls import path

from bots import views

app_name = "bots"

urlpatterns = [
    path("", views.computer, name="computer"),
]
