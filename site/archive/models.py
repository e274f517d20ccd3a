"""Export images kept in the database (archive.drawings): the expensive ones (a game's GIF) are
drawn once for everyone and kept where cheap requests filling Django's cache cannot push them
out."""
from django.db import models


class Drawing(models.Model):
    """One export image of a game, by `key` (what it shows: the kind, the game's stored
    history, the ply). `data` is null while one request draws it; `drawing_since` says when
    it began, so a drawer that died is taken over rather than waited for."""
    game = models.ForeignKey("play.Game", on_delete=models.CASCADE, related_name="drawings")
    kind = models.CharField(max_length=8)
    key = models.CharField(max_length=200, unique=True)
    data = models.BinaryField(null=True)
    drawing_since = models.DateTimeField(null=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [models.Index(fields=["game", "kind"])]

    def __str__(self):
        return self.key
