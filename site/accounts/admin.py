from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin

from accounts.models import Profile


admin.site.site_header = "Tessera administration"
admin.site.site_title = "Tessera admin"

User = get_user_model()
admin.site.unregister(User)


class ProfileInline(admin.StackedInline):
    model = Profile
    can_delete = False
    fields = ("is_bot", "mail_on_move", "mail_on_challenge", *Profile.BOARD_PREFS)


@admin.register(User)
class PlayerAdmin(UserAdmin):
    """Players are looked up by name and sorted by how recently they joined or came back."""

    list_display = ("username", "date_joined", "last_login", "is_active", "is_staff")
    list_filter = ("is_active", "is_staff", "is_superuser")
    ordering = ("-date_joined",)
    search_fields = ("username", "email")
    inlines = [ProfileInline]
