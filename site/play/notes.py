"""Private notes: each player of a game may keep notes on it (lichess has them), kept with the
game and shown to nobody but their author: not to the opponent, spectators, the snapshot, the
archive or the exports."""
from play.models import Note

MAX_LENGTH = 4000


class NoteError(ValueError):
    """A note refused; the message says why."""


def note_of(game, user):
    """The text `user` wrote on `game` ("" if none, or not a player)."""
    if game.player_index(user) is None:
        return ""
    found = Note.objects.filter(game=game, author=user).values_list("text", flat=True).first()
    return found or ""


def save(game, user, text):
    """Store `user`'s note on `game` (an empty text deletes it). NoteError for anyone but the
    two players, and for a text that is not text or too long."""
    if game.player_index(user) is None:
        raise NoteError("only the two players of a game keep notes on it")
    if not isinstance(text, str):
        raise NoteError("a note is text")
    text = text.replace("\r\n", "\n").strip()
    if len(text) > MAX_LENGTH:
        raise NoteError(f"a note is at most {MAX_LENGTH} characters")
    if not text:
        Note.objects.filter(game=game, author=user).delete()
        return ""
    Note.objects.update_or_create(game=game, author=user, defaults={"text": text})
    return text
