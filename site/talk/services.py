"""The chat of a game page, zulip style: `check_` looks up and refuses, `do_` makes the change,
`notify_` queues the news; `add_line` runs the three in one transaction.

Rooms. A player of the game writes in the players' room, anyone else logged in in the
spectators' room: the server decides, from who the author is. While the game is being played
the rooms are apart, as on lichess: the players never see the spectators' room (a spectator's
hint would be help from outside), and the spectators never see the players' room either (what
the two players say to each other stays between them until the game is over). Once the game
has ended, everyone sees both rooms, and the replay keeps them with the game.

Who hears what is decided here twice, for the two ways a line reaches a page: `lines_for`
picks the lines of a snapshot, and every `chat` news carries its `audience`, which the game
socket checks before sending (`hears`), so a player's socket never gets a spectator's line
during the game, whatever the browser would do with it.

Threads: the consumer runs `clean_text` on the event loop (it is the message's validation) and
`add_line` on a writer thread (live.lanes.write), outside the game's lane: a line neither
waits behind moves nor holds them up. No lock is taken: two lines of one author racing in two
server processes can pass the rate limit by one, which costs nothing.
"""
import math
import unicodedata
from datetime import timedelta
from functools import lru_cache

import regex
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone

from live import groups, outbox
from live.sql import column, converted, converters, fetch, quote, table
from live.sockets import Refusal, event
from play import broadcast
from play.models import Game
from play.signals import not_allowed
from talk.models import MAX_TEXT, ChatLine

# The lines of a snapshot: enough to follow a conversation after a reload.
HISTORY = 100
# The rate limit per author and game: a burst of BURST lines, then one line per
# WINDOW / BURST on average (at most BURST lines in any WINDOW).
BURST = 5
WINDOW = timedelta(seconds=10)

PLAYERS, SPECTATORS = ChatLine.PLAYERS, ChatLine.SPECTATORS
assert (PLAYERS, SPECTATORS) == (broadcast.PLAYERS, broadcast.SPECTATORS)

# Unicode's bidirectional embeddings, overrides, isolates and marks: in a line they would turn
# the rest of the chat around (the next author's name shown backwards), or hide in it.
BIDI_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
                          "\u200e\u200f\u061c")
# What shows nothing on its own: blanks, Unicode's default-ignorable characters (the Hangul
# fillers U+3164 and U+FFA0, U+180E, invisible operators such as U+2062, zero-width spaces),
# other format characters, combining marks with nothing to sit on, and the blank Braille
# pattern U+2800 (a symbol that draws no dot). A line needs one character outside this.
INVISIBLE = regex.compile(r"[\p{White_Space}\p{Default_Ignorable_Code_Point}\p{Cf}\p{M}\u2800]")
# Stripped from both ends with the blanks: invisible padding. Variation selectors and joiners
# stay, since they belong to the emoji before them ("❤️", "👩‍💻").
PADDING = regex.compile(
    r"(?V1)^[[\p{White_Space}\p{Default_Ignorable_Code_Point}\u2800]"
    r"--[\p{Variation_Selector}\u200c\u200d]]+"
    r"|[[\p{White_Space}\p{Default_Ignorable_Code_Point}\u2800]"
    r"--[\p{Variation_Selector}\u200c\u200d]]+$")


def clean_text(value):
    """The text of a `chat` message, stripped of surrounding blanks and invisible padding: 1
    to MAX_TEXT characters on one line, at least one of them visible, no control characters,
    no line or paragraph separators, no bidirectional controls. Refusal("bad_message")
    otherwise."""
    if not isinstance(value, str):
        raise Refusal("bad_message", "'text' must be text")
    for character in value:
        # Cs: a lone surrogate (JSON can carry one) is no character and no database stores it.
        # Zl, Zp: U+2028 and U+2029 start a new line.
        if (unicodedata.category(character) in ("Cc", "Cs", "Zl", "Zp")
                or character in BIDI_CONTROLS) and character not in " \t\n\r":
            raise Refusal("bad_message", "'text' must be one line without control characters")
    text = PADDING.sub("", value)
    if not text or all(INVISIBLE.match(character) for character in text):
        raise Refusal("bad_message", "'text' has no visible character")
    if len(text) > MAX_TEXT:
        raise Refusal("bad_message", f"'text' must be at most {MAX_TEXT} characters")
    if any(character in "\t\n\r" for character in text):
        raise Refusal("bad_message", "'text' must be one line without control characters")
    return text


def room_of(game, user):
    """The room `user` writes in: the players' for the game's two players."""
    return PLAYERS if game.player_index(user) is not None else SPECTATORS


def audience_of(game, room):
    """Who hears a line written in `room` now: the room's side while the game is played."""
    return room if game.is_active else broadcast.EVERYONE


def line_of(line, author_name=None):
    """A line as the protocol gives it (docs/protocol.md, `chat`)."""
    return {"id": line.id, "author": author_name or line.author.get_username(),
            "room": line.room, "text": line.text, "time": line.created_at.isoformat(),
            "ply": line.ply}


# -- reading -----------------------------------------------------------------------------------

def lines_for(game, user):
    """The latest HISTORY lines `user` may read on `game`'s page, oldest first: their own room
    while the game is played, both rooms once it is over. Every snapshot reads it, so its
    statement is written once (live.sql)."""
    sql, steps = _lines_sql(connection.vendor, game.is_active)
    params = [game.pk, room_of(game, user)] if game.is_active else [game.pk]
    lines = []
    for row in reversed(fetch(sql, params)):
        line_id, author, room, text, created_at, ply = converted(row, steps)
        lines.append({"id": line_id, "author": author, "room": room, "text": text,
                      "time": created_at.isoformat(), "ply": ply})
    return lines


@lru_cache(maxsize=None)
def _lines_sql(vendor, one_room):
    """The snapshot's lines with their authors' names, newest first: (sql, converters)."""
    User = get_user_model()
    name = User._meta.get_field(User.USERNAME_FIELD)
    fields = [ChatLine._meta.get_field(f) for f in ("id", "room", "text", "created_at", "ply")]
    line, author = table(ChatLine), table(User)
    where = f"{line}.{column(ChatLine, 'game')} = %s"
    if one_room:
        where += f" AND {line}.{column(ChatLine, 'room')} = %s"
    sql = (f"SELECT {line}.{quote(fields[0].column)}, {author}.{quote(name.column)}, "
           + ", ".join(f"{line}.{quote(field.column)}" for field in fields[1:])
           + f" FROM {line} INNER JOIN {author} ON {author}.{quote(User._meta.pk.column)} = "
           f"{line}.{column(ChatLine, 'author')} WHERE {where} "
           f"ORDER BY {line}.{quote(fields[0].column)} DESC LIMIT {HISTORY}")
    return sql, converters([fields[0], name, *fields[1:]])


# -- writing -----------------------------------------------------------------------------------

def check_add_line(game_id, author, now):
    """The game and the room `author` writes in. Refuses a visitor who is not logged in
    (`login_required`) and an author with BURST lines in this game within the last WINDOW
    (`chat_rate_limited`). Takes no lock."""
    if not getattr(author, "is_authenticated", False):
        raise Refusal("login_required", LOGIN_REQUIRED)
    game = Game.objects.get(pk=game_id)
    recent = list(ChatLine.objects.filter(game=game, author=author, created_at__gt=now - WINDOW)
                  .order_by("-created_at").values_list("created_at", flat=True)[:BURST])
    if len(recent) >= BURST:
        wait = math.ceil((recent[-1] + WINDOW - now).total_seconds())
        raise Refusal("chat_rate_limited",
                      f"at most {BURST} lines in {int(WINDOW.total_seconds())} s: "
                      f"wait {max(wait, 1)} s before the next one")
    room = room_of(game, author)
    if room == PLAYERS and (reason := not_allowed(game, "chat")):
        raise Refusal("chat_off", reason)
    return game, room


def do_add_line(game, author, room, text, now):
    """Store the line, at the game's current ply."""
    return ChatLine.objects.create(game=game, author=author, room=room, text=text,
                                   created_at=now, ply=game.ply_count)


def notify_line(game, line):
    """Queue the `chat` news for the game's sockets once the line is committed, with the
    audience each socket checks before sending it on."""
    news = {**event({"type": "chat", **line_of(line)}),
            "audience": audience_of(game, line.room)}
    outbox.send_after_commit(groups.game(game.pk), news)


LOGIN_REQUIRED = "log in to chat; visitors can read the spectators' chat"


def socket_chat(game_id, author, message, now=None):
    """The game socket's `chat` message (play.consumers.take: its author is logged in), on a
    writer thread."""
    return add_line(game_id, author, clean_text(message.get("text")), now)


def add_line(game_id, author, text, now=None):
    """Write `text` (already clean_text()'s) in the chat of game `game_id` as `author`, at
    `now` (when the message was received). Returns the messages for the sender alone: none,
    since the author hears their own line with everyone in the room."""
    now = now or timezone.now()
    with transaction.atomic():
        game, room = check_add_line(game_id, author, now)
        line = do_add_line(game, author, room, text, now)
        notify_line(game, line)
    return []
