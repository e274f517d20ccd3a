from django.contrib import admin

from ratings.models import Rating, RatingChange


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("user", "game", "rating", "deviation", "volatility", "games",
                    "last_rated_at")
    list_filter = ("game",)
    search_fields = ("user__username",)
    raw_id_fields = ("user",)


@admin.register(RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    """The history is what the games did: read it, never edit it by hand."""

    list_display = ("played", "user", "game", "score", "rating_before", "rating_after",
                    "created_at")
    list_filter = ("game",)
    search_fields = ("user__username",)

    def has_change_permission(self, request, obj=None):
        return False

    def has_add_permission(self, request):
        return False
