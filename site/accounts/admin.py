from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm

from accounts.lookalike import check_new_username
from accounts.models import Profile


admin.site.site_header = "Tessera administration"
admin.site.site_title = "Tessera admin"

User = get_user_model()
admin.site.unregister(User)


class PlayerCreationForm(AdminUserCreationForm):
    """The admin's "add user": the sign-up page's name rules (accounts.lookalike)."""

    def clean_username(self):
        username = self.cleaned_data["username"]
        check_new_username(username)
        return username


class PlayerChangeForm(UserChangeForm):
    """The admin's user page: a new name follows the sign-up page's rules too."""

    def clean_username(self):
        username = self.cleaned_data["username"]
        if username != self.instance.username:
            check_new_username(username, exclude_pk=self.instance.pk)
        return username


class ProfileInline(admin.StackedInline):
    model = Profile
    can_delete = False
    fields = ("is_bot", "mail_on_move", "mail_on_challenge", *Profile.BOARD_PREFS)


@admin.register(User)
class PlayerAdmin(UserAdmin):
    """Players are looked up by name and sorted by how recently they joined or came back."""

    add_form = PlayerCreationForm
    form = PlayerChangeForm

    list_display = ("username", "date_joined", "last_login", "is_active", "is_staff")
    list_filter = ("is_active", "is_staff", "is_superuser")
    ordering = ("-date_joined",)
    search_fields = ("username", "email")
    inlines = [ProfileInline]
