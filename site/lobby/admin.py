from django.contrib import admin

from lobby.models import Challenge, Seek


@admin.register(Seek)
class SeekAdmin(admin.ModelAdmin):
    list_display = ("id", "owner", "game", "options", "tc_kind", "side", "status", "created_at",
                    "accepted_by", "started_game")
    list_filter = ("status", "game", "tc_kind")
    search_fields = ("owner__username", "accepted_by__username")
    raw_id_fields = ("owner", "accepted_by", "started_game")


@admin.register(Challenge)
class ChallengeAdmin(admin.ModelAdmin):
    list_display = ("id", "challenger", "challenged", "game", "options", "tc_kind", "side",
                    "status", "created_at", "started_game")
    list_filter = ("status", "game", "tc_kind")
    search_fields = ("challenger__username", "challenged__username")
    raw_id_fields = ("challenger", "challenged", "started_game")
