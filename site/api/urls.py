from django.urls import path

from api.endpoints import api
from api import views

urlpatterns = [
    path("api/v1/", api.urls),
    path("accounts/tokens/", views.tokens_page, name="api_tokens"),
    path("accounts/tokens/<int:token_id>/revoke/", views.revoke, name="api_token_revoke"),
    path("accounts/bot/", views.upgrade, name="api_bot_upgrade"),
]
