"""Telling everyone: the game's own group (its players' and spectators' sockets), the "games"
group (every Watch socket, in every process) and the other apps (play.signals).

Everything about a change is queued only once its transaction has committed, so nobody hears of
a move the database does not have, and it leaves from the event loop (live.outbox), encoded
once for every recipient.
"""
from django.db import transaction

from live import groups, outbox
from live.sockets import event
from play import positions, signals

# Who hears a news of the game's group that carries an "audience" (the game socket checks it):
# the players' sockets, the spectators', or every socket of the game.
PLAYERS, SPECTATORS, EVERYONE = "players", "spectators", "everyone"


def hears(audience, is_player):
    """Whether a socket hears news with this audience. `is_player`: the socket is one of the
    players' (None: not known yet, so it hears only what everyone may)."""
    if audience == EVERYONE:
        return True
    if is_player is None:
        return False
    return (audience == PLAYERS) == is_player


def to_game(game, message, rewound=False, stored=None):
    """Send `message` to everyone on the game's page once the transaction commits. The event
    also carries the game's ply and when its time is up, for the server processes' own
    bookkeeping (play.rooms: each process's one timer per game); `rewound`: the ply went
    back (a takeback), which the rooms take even though it is lower than the one they knew;
    `stored`: (ply, action) of the action the change stored, with what names the game's
    history (play.positions.heard: every process steps its position on from the news)."""
    news = {**event(message), "ply": game.ply_count,
            "expires_at": game.expires_at.isoformat() if game.expires_at else None}
    if rewound:
        news["rewound"] = True
    if stored is not None:
        news["stored"] = [*positions.history(game), *stored]
    outbox.send_after_commit(groups.game(game.pk), news)


def now_to_game(game_id, message):
    """Send `message` to the game's page now: news that is not a change to the game."""
    outbox.send(groups.game(game_id), event(message))


def announce(game, what):
    """Tell the "games" group, and the other apps (play.signals.game_changed), that `game`
    started, had an action or ended, after the commit. `what`: "started", "action",
    "taken_back" or "ended"; the Watch sockets follow it."""
    news = {"type": "games.changed", "game_id": game.pk, "event": what}

    def tell():
        outbox.send(groups.GAMES, news)
        signals.game_changed.send(sender=type(game), game=game, event=what)

    transaction.on_commit(tell)


def now_to_seat(game_id, player, message):
    """Send `message` now to the sockets of one player of the game (player index): news
    nobody else may hear (a premove). The game socket drops it on everyone else's."""
    outbox.send(groups.game(game_id), {**event(message), "seat": player})


def to_seat(game, player, message):
    """now_to_seat() once the current transaction commits: a player's own queued turn or
    conditional lines, never heard of before they are stored."""
    outbox.send_after_commit(groups.game(game.pk), {**event(message), "seat": player})
