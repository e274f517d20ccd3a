"""Rating a game when it ends.

`rate_game(game, now)` is called by the play app inside the transaction that ends the game
(play.endings.finish), so the end and the rating change are stored together or not at all,
and never by a browser. It runs at most once per game: the history row per (game, player) is
unique, and the check for it is made after taking the players' rating rows.

Locks: the caller holds the game's row lock. This takes the two players' rating rows for the
game's kind (SELECT ... FOR UPDATE, in primary-key order so that two games of the same players
ending at once cannot deadlock): a player's rating changes one game at a time.
"""
from ratings import glicko2, policy
from ratings.models import Rating, RatingChange


def rate_game(game, now) -> list[RatingChange]:
    """Apply a finished rated game to both players' ratings; returns the two history rows
    (player0's first), or [] for a casual or aborted game. Idempotent."""
    if not is_rated_result(game):
        return []
    players = game.players()
    rows = lock_ratings(players, game.game)
    done = list(RatingChange.objects.filter(played=game).order_by("player_index"))
    if done:
        game._rating_changes = done
        return done
    before = [rows[p.pk].glicko_at(now) for p in players]
    scores = score_of(game.winner)
    changes = []
    for index, player in enumerate(players):
        opponent = 1 - index
        after = policy.bounded(glicko2.rate(before[index], [(before[opponent], scores[index])],
                                            tau=policy.TAU, periods=0.0))
        changes.append(RatingChange(
            played=game, user=player, game=game.game, player_index=index,
            opponent=players[opponent], score=scores[index],
            rating_before=before[index].rating, deviation_before=before[index].deviation,
            rating_after=after.rating, deviation_after=after.deviation,
            volatility_after=after.volatility,
            opponent_rating=before[opponent].rating,
            opponent_deviation=before[opponent].deviation,
            created_at=now,
        ))
        record(rows[player.pk], after, scores[index], now)
    RatingChange.objects.bulk_create(changes)
    game._rating_changes = changes
    return changes


def is_rated_result(game) -> bool:
    """A rated game that was played to a result: one aborted, never started or left idle
    (Game.NO_RESULT) is never rated."""
    return bool(game.rated) and game.has_result


def score_of(winner):
    """Each player's score (player0's first) for a winner's player index, None for a draw."""
    if winner is None:
        return (0.5, 0.5)
    return (1.0, 0.0) if winner == 0 else (0.0, 1.0)


def lock_ratings(players, kind) -> dict:
    """The players' rating rows for `kind`, made if missing and locked (pk order)."""
    ids = sorted(player.pk for player in players)
    locked = Rating.objects.select_for_update().filter(user_id__in=ids, game=kind).order_by("pk")
    rows = {row.user_id: row for row in locked}
    if len(rows) == len(ids):
        return rows  # the usual case: one query, no savepoints
    for user_id in ids:
        # get_or_create survives a racing insert of the same row (it reads it back).
        Rating.objects.get_or_create(user_id=user_id, game=kind)
    return {row.user_id: row for row in locked.all()}


def record(row, after, score, now):
    row.rating, row.deviation, row.volatility = after.rating, after.deviation, after.volatility
    row.games += 1
    if score == 1.0:
        row.wins += 1
    elif score == 0.0:
        row.losses += 1
    else:
        row.draws += 1
    row.last_rated_at = now
    row.save()


def changes_of(game) -> list[RatingChange]:
    """The game's history rows (player0's first): those just written by rate_game on this
    instance, else read."""
    cached = getattr(game, "_rating_changes", None)
    if cached is not None:
        return cached
    if not is_rated_result(game):
        return []
    found = list(RatingChange.objects.filter(played=game).select_related("user")
                 .order_by("player_index"))
    game._rating_changes = found
    return found


def result_ratings(game) -> list[dict]:
    """The rating changes as the end message and snapshots carry them (docs/protocol.md)."""
    return [{"username": change.user.get_username(), "before": change.before,
             "after": change.after, "change": change.change,
             "provisional": change.provisional}
            for change in changes_of(game)]

