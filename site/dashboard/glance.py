"""A logged-in player's own games at a glance, for the home page: the games in progress
(theirs to move first, with clocks and correspondence deadlines), their pending challenges,
and their latest results with what the rated ones did to their rating."""
from dataclasses import dataclass

from django.utils import timezone

from lobby.listing import challenge_dicts
from play.models import Game
from ratings.display import badge, prefetch
from watch import profiles

IN_PROGRESS = 30
RESULTS = 5


@dataclass
class Playing:
    game: Game
    opponent: object
    opponent_rating: dict
    your_turn: bool
    # Realtime: milliseconds left now, yours and theirs, and whose runs (None: neither).
    your_ms: int | None
    their_ms: int | None
    running: str | None  # "you" | "them" | None
    deadline: object  # correspondence: when the player to move must have moved
    # Correspondence: the opponent is on vacation (play.vacations): their deadline stands.
    opponent_away: bool = False


def playing(user, now) -> list[Playing]:
    found = list(Game.objects.of_player(user).active().with_players()
                 .order_by("-updated_at", "-pk")[:IN_PROGRESS])
    prefetch([player for game in found for player in game.players()])
    rows = []
    for game in found:
        me = game.player_index(user)
        mover = game.player_to_move()
        left = game.remaining_at(now) if game.time_control.is_realtime else None
        running = game.running
        rows.append(Playing(
            game=game, opponent=game.players()[1 - me],
            opponent_rating=badge(game.players()[1 - me], game.game),
            your_turn=mover == me,
            your_ms=left[me] if left else None, their_ms=left[1 - me] if left else None,
            running=None if running is None else ("you" if running == me else "them"),
            deadline=game.deadline,
            opponent_away=game.vacation_since(1 - me) is not None))
    # Your move first, the most urgent first; then the others, latest activity first.
    waiting = sorted((r for r in rows if r.your_turn), key=urgency)
    return waiting + [r for r in rows if not r.your_turn]


def urgency(row):
    if row.deadline is not None:
        return (0, row.deadline.timestamp())
    if row.your_ms is not None:
        return (0, timezone.now().timestamp() + row.your_ms / 1000)
    return (1, 0)


def overview(user, now=None) -> dict:
    now = now or timezone.now()
    games = playing(user, now)
    ended = list(profiles.games_of(user).exclude(status=Game.ACTIVE)
                 .order_by("-finished_at", "-pk")[:RESULTS])
    prefetch([game.players()[1 - game.player_index(user)] for game in ended])
    return {
        "playing": games,
        "your_turn": sum(1 for row in games if row.your_turn),
        "challenges": challenge_dicts(user),
        "results": [profiles.entry(game, user) for game in ended],
    }
