"""Mail notices waiting to be sent: recorded when something happens (after its commit), sent
later in batches by notifications.mail.send_pending, so a burst of moves makes one mail and
nothing on the move path waits for a mail server."""
from django.conf import settings
from django.db import models
from django.db.models import Q


class PendingMail(models.Model):
    MOVE, CHALLENGE = "move", "challenge"
    KINDS = [(MOVE, "a correspondence opponent moved"), (CHALLENGE, "a challenge arrived")]

    recipient = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                  related_name="+")
    kind = models.CharField(max_length=10, choices=KINDS)
    game = models.ForeignKey("play.Game", null=True, blank=True, on_delete=models.CASCADE,
                             related_name="+")
    challenge = models.ForeignKey("lobby.Challenge", null=True, blank=True,
                                  on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField()
    due_at = models.DateTimeField(db_index=True)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            # One unsent notice per recipient and game: later moves join it.
            models.UniqueConstraint(fields=["recipient", "game"],
                                    condition=Q(kind="move", sent_at__isnull=True),
                                    name="notifications_one_move_notice"),
            models.UniqueConstraint(fields=["challenge"], condition=Q(kind="challenge"),
                                    name="notifications_one_challenge_notice"),
        ]
        indexes = [models.Index(fields=["sent_at", "due_at"], name="notifications_due")]

    def __str__(self):
        return f"{self.kind} notice for {self.recipient} due {self.due_at:%Y-%m-%d %H:%M}"
