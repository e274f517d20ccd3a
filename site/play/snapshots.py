"""What a client is told about a game: the full snapshot it draws from, and the clock and
result objects that the action and end messages carry too (docs/protocol.md). The apps above
play add their parts of the page (the talk app: the chat lines a viewer may read) through
add_part(), at their ready(): play never imports them."""
from django.utils import timezone

from play import positions, statements
from play.lapses import lapses_at
from play.models import Game, game_url
from play.presence import presence_of
from play.signals import house_rules_of, occasion_of
from ratings.display import badges
from ratings.services import result_ratings


# key -> part(game, user): what the apps above play add to every snapshot.
_parts = {}


def add_part(key, part):
    """Every snapshot gets `key`: part(game, user), read on the snapshot's thread."""
    _parts[key] = part


def iso(moment):
    return moment.isoformat() if moment is not None else None


def plies_of(game_ids):
    """{game id: (ply, status)}: what a keep-alive tells each socket of these games."""
    return {pk: (ply, status) for pk, ply, status in
            Game.objects.filter(pk__in=game_ids).values_list("pk", "ply_count", "status")}


def load(game_id):
    return statements.game(game_id)


def result_of(game):
    if game.is_active:
        return None
    result = {"winner": game.winner, "reason": game.reason, "text": game.result_text}
    if game.rated:
        result["ratings"] = result_ratings(game)
    return result


def clocks_of(game, now):
    running = game.running
    return {
        "remaining_ms": game.remaining_at(now) if game.time_control.is_realtime else None,
        "running": running,
        "deadline": iso(game.deadline),
        "turn_started_at": iso(game.turn_started_at if running is not None else None),
        "expires_at": iso(lapses_at(game)),
        "server_time": iso(now),
        # Correspondence: which players are on vacation (play.vacations); the deadline of one
        # who is stands still (deadline null).
        "away": [game.vacation0_since is not None, game.vacation1_since is not None],
        # Realtime: each player's increment in seconds (none after a berserk, play.berserk).
        "increments": game.increments(),
    }


def rematch_status(game):
    """The standing offer, if any, and the rematch that followed, if any."""
    follow_up = game.follow_up_id()
    return {"offered_by": game.rematch_offer,
            "url": None if follow_up is None else game_url(follow_up)}


def premove_of(game, player):
    """The premove `player` has queued (play.premoves), for their eyes only, or None."""
    if player is None or not game.premove_waiting or not game.is_active:
        return None
    # One queued before a takeback is for a position that is gone (dropped when next due).
    found = game.premoves.filter(player=player, takebacks=game.takebacks).first()
    return None if found is None else {"ply": found.ply, "actions": list(found.actions)}


def conditions_of(game, player):
    """The conditional moves `player` left (play.conditionals), for their eyes only, or None."""
    if player is None or not game.conditions_waiting or not game.is_active:
        return None
    found = game.conditionals.filter(player=player, takebacks=game.takebacks).first()
    return None if found is None else {"ply": found.ply, "lines": found.lines()}


def by_condition_of(game):
    """The action numbers (from 1, as the move list counts) that the server played from a
    player's conditional moves. Only correspondence games have them: others ask nothing."""
    if game.time_kind != "correspondence":
        return []
    return [ply + 1 for ply in game.action_rows.filter(by_condition=True)
            .order_by("ply").values_list("ply", flat=True)]


def snapshot(game, user=None, now=None, presence=None):
    """Everything a client needs to draw the game from scratch. `presence`: when the caller
    has just counted it."""
    now = now or timezone.now()
    state = game.state()
    presence = presence or presence_of(game, now)
    ratings = badges(game.players(), game.game, now)
    you = game.player_index(user)
    return {
        **game.identity(),
        "players": [
            {"username": seat.username, "side": seat.side,
             "online": presence["players_online"][seat.index],
             "rating": ratings[seat.index]}
            for seat in game.seats()
        ],
        "swapped": game.swapped,
        "rated": game.rated,
        "you": you,
        "time_control": game.time_control.to_dict(),
        "clocks": clocks_of(game, now),
        "status": game.status,
        "result": result_of(game),
        "actions": list(state.actions),
        # Which of them a conditional move played (public, like the record's tag).
        "by_condition": by_condition_of(game),
        "state": positions.state_dict(game, state),
        "presence": presence,
        "rematch": rematch_status(game),
        "takeback": {"offered_by": game.takeback_offer, "ply": game.ply_count},
        "takebacks": game.takebacks,
        # What the game's event (play.signals) turns off, and the event itself.
        "house_rules": house_rules_of(game),
        "event": occasion_of(game),
        # Only the owner's own snapshot carries their queued turn.
        "premove": premove_of(game, you),
        # Likewise their conditional moves (play.conditionals): {ply, lines} or null.
        "conditions": conditions_of(game, you),
        # A reloaded page shows the conversation it had (the chat, talk).
        **{key: part(game, user) for key, part in _parts.items()},
    }
