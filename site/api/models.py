"""Personal API tokens and bot accounts.

A token's secret is shown once, when it is made; the database keeps its SHA-256 (a secret of
256 random bits needs no slow hash: nobody can guess it from the digest) and its first
characters, so its owner can tell tokens apart."""
from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Scope(models.TextChoices):
    READ = "read", "Read games"
    PLAY = "play", "Play games"
    CHALLENGE = "challenge", "Seeks and challenges"
    BOT = "bot", "Bot play (bot accounts only)"


def live_tokens(now=None):
    """The condition of a token that works: not revoked, not expired, its owner active."""
    now = now or timezone.now()
    return (Q(revoked_at=None, user__is_active=True)
            & (Q(expires_at=None) | Q(expires_at__gt=now)))


class ApiToken(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="api_tokens")
    name = models.CharField(max_length=60)
    prefix = models.CharField(max_length=16)
    digest = models.CharField(max_length=64, unique=True)
    scopes = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # When it stops working by itself (None: when revoked). Chosen at its creation.
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self):
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_revoked(self):
        return self.revoked_at is not None

    @property
    def is_expired(self):
        return self.expires_at is not None and self.expires_at <= timezone.now()

    def scope_labels(self):
        return [Scope(scope).label for scope in self.scopes if scope in Scope.values]


class BotAccount(models.Model):
    """An account its owner turned into a bot (irreversible): it plays through the API only,
    is marked BOT and is kept off the leaderboards. The site's own computer players are
    accounts.Profile.is_bot instead (they answer no challenge; a bot account does)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="bot_account")
    upgraded_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"bot account {self.user}"
