from django.urls import path, register_converter

from accounts import views


class UsernameConverter:
    """The characters a username may have (Django's UnicodeUsernameValidator): anything else
    in /u/<name>/, a NUL that PostgreSQL refuses to compare with included, is a 404."""

    regex = r"[\w.@+-]+"

    def to_python(self, value):
        return value

    def to_url(self, value):
        return value


register_converter(UsernameConverter, "username")

app_name = "accounts"

urlpatterns = [
    path("accounts/signup/", views.SignupView.as_view(), name="signup"),
    path("accounts/login/", views.LoginView.as_view(), name="login"),
    path("accounts/logout/", views.LogoutView.as_view(), name="logout"),
    path("accounts/password/", views.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/settings/", views.SettingsView.as_view(), name="settings"),
    path("accounts/settings/board/", views.board_pref, name="board_pref"),
    path("accounts/password/reset/", views.PasswordResetView.as_view(), name="password_reset"),
    path("accounts/password/reset/sent/", views.PasswordResetDoneView.as_view(),
         name="password_reset_done"),
    path("accounts/password/reset/<uidb64>/<token>/", views.PasswordResetConfirmView.as_view(),
         name="password_reset_confirm"),
    path("accounts/password/reset/done/", views.PasswordResetCompleteView.as_view(),
         name="password_reset_complete"),
    # Public profiles read like a player's address on the site, outside /accounts/.
    path("u/<username:username>/", views.profile, name="profile"),
]
