"""What the lobby shows, on the Play page and over its sockets: the open seeks, a player's
pending challenges and games in progress, as JSON-ready dicts (the page renders the same
dicts the sockets push, so both look alike)."""
from django.db.models import Q
from django.urls import reverse

from lobby.models import Challenge, Seek
from play.models import Game, awaiting
from ratings.display import NEWCOMER, badge, ratings_of, standing


def open_seeks():
    # Every owner's ratings in one query, for the ratings beside their names.
    return (Seek.objects.filter(status=Seek.Status.OPEN).select_related("owner")
            .prefetch_related("owner__ratings"))


def pending_challenges(user):
    """The player's pending challenges, sent and received, oldest first."""
    if not user.is_authenticated:
        return Challenge.objects.none()
    return (Challenge.objects.filter(status=Challenge.Status.PENDING)
            .filter(Q(challenger=user) | Q(challenged=user))
            .select_related("challenger", "challenged")
            .prefetch_related("challenger__ratings", "challenged__ratings"))


def games_in_progress(user, limit=20) -> list[dict]:
    """The player's active games, so that a game started while they were elsewhere (or
    without JavaScript) is one click away."""
    if not user.is_authenticated:
        return []
    found = (Game.objects.of_player(user).active().with_players()
             .prefetch_related("player0__ratings", "player1__ratings").order_by("-updated_at")[:limit])
    shown = []
    for game in found:
        opponent = game.player1 if game.player0_id == user.pk else game.player0
        shown.append({
            "url": game.get_absolute_url(),
            "title": game.title,
            "options_text": game.options_text,
            "opponent": opponent.get_username(),
            "opponent_rating": badge(opponent, game.game),
            "time_control": game.time_control.text,
            "rated": game.rated,
        })
    return shown


def proposal_dict(proposal) -> dict:
    return {
        "id": proposal.pk,
        "game": proposal.game,
        "game_title": proposal.game_title,
        "options": proposal.options,
        "options_text": proposal.options_text,
        "time_control": proposal.time_control.to_dict(),
        "realtime": proposal.time_control.is_realtime,
        "side": proposal.side,
        "side_text": proposal.side_text(),
        "rated": proposal.rated,
        "mode_text": proposal.mode_text,
        "created_at": proposal.created_at.isoformat(),
    }


def rating_bounds(seek: Seek) -> tuple[int, int] | None:
    """The ratings a seek's accepter may have (the owner's as it stands now, ± the range),
    or None: anyone."""
    if seek.rating_range is None:
        return None
    centre = standing(seek.owner, seek.game).rating
    return centre - seek.rating_range, centre + seek.rating_range


def seek_dict(seek: Seek) -> dict:
    bounds = rating_bounds(seek)
    return {
        **proposal_dict(seek),
        "owner": seek.owner.get_username(),
        "owner_rating": badge(seek.owner, seek.game),
        "rating_range": seek.rating_range,
        "rating_min": bounds[0] if bounds else None,
        "rating_max": bounds[1] if bounds else None,
        "accept_url": reverse("lobby:seek_accept", args=[seek.pk]),
        "cancel_url": reverse("lobby:seek_cancel", args=[seek.pk]),
    }


def challenge_dict(challenge: Challenge) -> dict:
    return {
        **proposal_dict(challenge),
        "from": challenge.challenger.get_username(),
        "to": challenge.challenged.get_username(),
        "from_rating": badge(challenge.challenger, challenge.game),
        "to_rating": badge(challenge.challenged, challenge.game),
        "accept_url": reverse("lobby:challenge_accept", args=[challenge.pk]),
        "decline_url": reverse("lobby:challenge_decline", args=[challenge.pk]),
        "withdraw_url": reverse("lobby:challenge_withdraw", args=[challenge.pk]),
    }


def seek_dicts() -> list[dict]:
    return [seek_dict(seek) for seek in open_seeks()]


def out_of_range(seek: dict, ratings: dict) -> bool:
    """Does the seek's rating range leave out a viewer with these ratings ({game: rating};
    a game without one counts as the starting rating)? The lobby script asks the same."""
    if seek["rating_min"] is None:
        return False
    mine = ratings.get(seek["game"], NEWCOMER.rating)
    return not seek["rating_min"] <= mine <= seek["rating_max"]


def for_viewer(seeks: list[dict], user) -> list[dict]:
    """The seeks as one viewer sees them: `out_of_range` marks those they cannot accept."""
    if not user.is_authenticated:
        return seeks
    ratings = ratings_of(user)
    return [{**seek, "out_of_range": seek["owner"] != user.get_username()
             and out_of_range(seek, ratings)} for seek in seeks]


def challenge_dicts(user) -> list[dict]:
    return [challenge_dict(challenge) for challenge in pending_challenges(user)]


def snapshot(user, seeks=True) -> dict:
    """Everything a lobby socket shows, sent on (re)connect so nothing missed while away
    stays missed. The notification socket's has no seeks (it does not show them)."""
    shown = {
        "type": "snapshot",
        "you": user.get_username() if user.is_authenticated else None,
        "your_ratings": ratings_of(user),
        # The games awaiting the player's move (the header's count; `turn` events follow).
        "your_turn": [game.pk for game in awaiting(user)],
        "challenges": challenge_dicts(user),
    }
    if seeks:
        shown["seeks"] = seek_dicts()
    return shown


def game_started(game, message: str) -> dict:
    return {"type": "game_started", "game_id": game.pk, "url": game.get_absolute_url(),
            "message": message}
