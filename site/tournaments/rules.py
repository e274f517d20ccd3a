"""An event's rules in words, for its page: the format, the clock, the scoring, the grace and
the tie-breaks, worded from the constants the code plays by (so the page cannot drift from
what happens)."""
from django.conf import settings

from tournaments.formats import roundrobin, swiss
from tournaments.formats.arena import BERSERK_MIN_ACTIONS, DRAW, STREAK_AFTER, WIN
from tournaments.models import Tournament
from tournaments.results import GRACE
from tournaments.services import FEW_PEOPLE


def rules_of(tournament):
    """[(heading, sentence)], in the order a player needs them."""
    kind = tournament.kind
    return [("Format", _format(tournament)), ("Clock", _clock(tournament.time_control)),
            ("Scoring", _scoring(kind)), ("Ending", _ending(tournament)),
            ("Ties", _ties(kind)), ("Games", _games(tournament))]


def _format(tournament):
    if tournament.kind == Tournament.ARENA:
        text = (f"Arena of {_minutes(tournament)} minutes: join any time "
                "before the end and you are paired as soon as you are free, with a free player "
                "near you in the standings, never the one you just met unless only the two of "
                "you are waiting. Pause to take a break; come back to be paired again.")
        if settings.TOURNAMENT_COMPUTERS:
            text += (f" While fewer than {FEW_PEOPLE} people are in, computer players join "
                     "(marked BOT; they never take a place on the podium).")
        return text
    if tournament.kind == Tournament.SWISS:
        bye = ("plays a computer instead of sitting out (the result counts; once per player, "
               "the lowest-ranked who has not)" if settings.TOURNAMENT_COMPUTERS else
               "gets a bye (one point, once per player, the lowest-ranked without one)")
        return (f"Swiss, {tournament.rounds} rounds: each round you meet a player with the same "
                "score or the nearest, never the same opponent twice, with first and second "
                f"moves balanced. An odd player out {bye}. Join before round 2 (with zero "
                "points); withdraw at any time. With fewer than "
                f"{swiss.MIN_PLAYERS} players at the start the event is cancelled: nothing is "
                "paired, and those who joined are told.")
    both = " twice, once with each side" if tournament.double else ""
    return (f"Round robin: everyone plays everyone{both}; all games start at once when the "
            f"event starts. With fewer than {roundrobin.MIN_PLAYERS} players then it is "
            "cancelled, and those who joined are told.")


def _minutes(tournament):
    return round((tournament.ends_at - tournament.starts_at).total_seconds() / 60)


def _clock(time_control):
    if time_control.is_realtime:
        return (f"{time_control.text}: {time_control.minutes} minutes each, plus "
                f"{time_control.increment} seconds for each action.")
    if time_control.is_correspondence:
        return f"{time_control.text}, correspondence."
    return "Untimed."


def _scoring(kind):
    if kind == Tournament.ARENA:
        return (f"A win {WIN} points, a draw (Colorful Connection) {DRAW}, a loss 0. After "
                f"{STREAK_AFTER} wins in a row each further win counts double (the flame) "
                "until a game is not won. Berserk: before your first action you may halve your "
                "own clock and give up your increment for the game; a win after at least "
                f"{BERSERK_MIN_ACTIONS} actions of your own is then worth one more point.")
    free_bye = kind == Tournament.SWISS and not settings.TOURNAMENT_COMPUTERS
    return "A win 1 point, a draw (Colorful Connection) ½, a loss 0" + (
        ", a bye 1." if free_bye else ".")


def _ending(tournament):
    kind = tournament.kind
    forfeit = ("A first move not made in time loses the game"
               + (" and pauses you until you come back" if kind == Tournament.ARENA else "")
               + "; an aborted game counts for nobody.")
    if kind == Tournament.ARENA:
        return (f"At the end no new game starts; games in play count if they end within "
                f"{int(GRACE.total_seconds() // 60)} minutes after it. " + forfeit)
    if kind == Tournament.SWISS and tournament.round_days:
        days = tournament.round_days
        return (f"A round starts {days} day{'s' if days != 1 else ''} after the one before "
                "(games still in play go on and count), or when its last game has ended, "
                "if sooner. " + forfeit)
    if kind == Tournament.SWISS:
        return ("A round starts when the last game of the round before has ended. " + forfeit)
    return "The event ends with its last game. " + forfeit


def _ties(kind):
    if kind == Tournament.ARENA:
        return "Points, then tournament performance rating."
    if kind == Tournament.SWISS:
        return "Points, then Buchholz, then Sonneborn-Berger, then the direct encounter."
    return "Points, then Sonneborn-Berger, then the direct encounter."


def _games(tournament):
    rated = "Rated" if tournament.rated else "Casual"
    return (f"{rated}; ordinary games otherwise (in the Archive and on Watch), without "
            "takebacks or chat between the players (spectators still talk).")
