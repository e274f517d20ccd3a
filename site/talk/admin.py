from django.contrib import admin

from talk.models import ChatLine


@admin.register(ChatLine)
class ChatLineAdmin(admin.ModelAdmin):
    """For moderators: find a line by its author or its words, and remove it."""
    list_display = ("id", "game", "author", "room", "ply", "created_at", "text")
    list_filter = ("room",)
    search_fields = ("author__username", "text")
    raw_id_fields = ("game", "author")
    readonly_fields = ("game", "author", "room", "ply", "created_at")
