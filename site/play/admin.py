from django.contrib import admin

from play.models import Action, Game


class ActionInline(admin.TabularInline):
    model = Action
    extra = 0
    fields = ("ply", "action", "player", "created_at")
    readonly_fields = fields
    can_delete = False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "player0", "player1", "status", "reason", "ply_count",
                    "created_at", "finished_at")
    list_filter = ("status", "game", "time_kind", "reason")
    search_fields = ("player0__username", "player1__username")
    raw_id_fields = ("player0", "player1", "rematch_of")
    inlines = [ActionInline]
    # The position is the replay of the actions: edit neither by hand.
    readonly_fields = ("ply_count", "swapped", "created_at", "updated_at")
