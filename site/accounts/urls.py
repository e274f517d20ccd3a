from django.urls import path

from accounts import views

app_name = "accounts"

urlpatterns = [
    path("accounts/signup/", views.SignupView.as_view(), name="signup"),
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", views.LogoutView.as_view(), name="logout"),
    path("accounts/password/", views.PasswordChangeView.as_view(), name="password_change"),
    # Public profiles read like a player's address on the site, outside /accounts/.
    path("u/<str:username>/", views.profile, name="profile"),
]
