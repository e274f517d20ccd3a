"""The chat of a game, kept with the game: its players' room and its spectators' room.

A line's room follows from who wrote it (talk.services.room_of): one of the game's two players
writes in the players' room, anyone else logged in in the spectators' room. `ply` is the
game's ply when the line was written, so a replay can place the line beside the moves."""
from django.conf import settings
from django.db import models
from django.utils import timezone

from play.models import Game

# Long enough for a sentence, short enough that a line never becomes a wall.
MAX_TEXT = 140


class ChatLine(models.Model):
    PLAYERS, SPECTATORS = "players", "spectators"
    ROOMS = [(PLAYERS, "players"), (SPECTATORS, "spectators")]

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="chat_lines")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                               related_name="chat_lines")
    room = models.CharField(max_length=10, choices=ROOMS)
    text = models.CharField(max_length=MAX_TEXT)
    created_at = models.DateTimeField(default=timezone.now)
    ply = models.PositiveIntegerField()

    class Meta:
        ordering = ["id"]
        indexes = [
            # A game's latest lines (the snapshot's last 100), per room or all.
            models.Index(fields=["game", "room", "-id"], name="talk_line_game_room"),
            models.Index(fields=["game", "-id"], name="talk_line_game"),
            # The rate limit: one author's latest lines in one game.
            models.Index(fields=["game", "author", "-created_at"], name="talk_line_author"),
        ]

    def __str__(self):
        return f"{self.author} in game {self.game_id} ({self.room}): {self.text}"
