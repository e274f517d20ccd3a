"""Computer players: one account per level (bots.accounts makes them). The account is an
ordinary user, so games, ratings and archives treat it like anyone; its profile says it is a
computer (accounts.Profile.is_bot) and this row says at which level it plays."""
from django.conf import settings
from django.db import models


class Bot(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="bot")
    # A level of games.bots.LEVELS.
    level = models.PositiveSmallIntegerField(unique=True)

    class Meta:
        ordering = ["level"]

    def __str__(self):
        return f"{self.user} (level {self.level})"
