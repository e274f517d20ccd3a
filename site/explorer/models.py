"""The opening explorer's counts: one row per (game, board, pool, line so far, next action),
kept by explorer.counts when a game ends, never recomputed per request."""
from django.db import models


class OpeningNode(models.Model):
    """How many counted games played `action` after the line whose hash is `line_hash`, on
    one board (`variant`: the game's options as text, e.g. "size=5"), in one pool, and how
    often each side (engine colour: side 0 moved first) won or it was drawn."""
    PEOPLE, COMPUTER = "people", "computer"
    POOLS = [(PEOPLE, "rated games between people"), (COMPUTER, "games with the computer")]

    game = models.CharField(max_length=20)
    variant = models.CharField(max_length=40)
    pool = models.CharField(max_length=8, choices=POOLS)
    # A hash of the canonical actions before this one (explorer.counts.line_hash): short and
    # of fixed length, so the index stays small however long the actions' notation is.
    line_hash = models.CharField(max_length=16)
    ply = models.PositiveSmallIntegerField()
    action = models.CharField(max_length=40)
    games = models.PositiveIntegerField(default=0)
    wins0 = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    wins1 = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            # Also the index a node's answer reads: every next action of one line.
            models.UniqueConstraint(fields=["game", "variant", "pool", "line_hash", "action"],
                                    name="explorer_node_key"),
        ]

    def __str__(self):
        return f"{self.game} {self.variant} {self.pool} ply {self.ply}: {self.action}"
