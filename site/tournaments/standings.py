"""An event's standings as its page shows them, worked out from its pairings: the entries'
points (kept by tournaments.results) and the format's tie-breaks (tournaments.formats)."""
from accounts.models import Profile
from ratings.models import Rating
from tournaments.formats.arena import ArenaGame, on_fire, sheet
from tournaments.formats.standings import performance, round_robin_table, swiss_standings
from tournaments.models import Tournament

START_RATING = Rating._meta.get_field("rating").default


def table(tournament):
    """Rows best first: rank, player, points, the format's tie-breaks, games, in play."""
    entries = {entry.pk: entry for entry in tournament.entries.select_related("player")}
    pairings = list(tournament.pairings.order_by("ended_at", "pk"))
    counted = [p for p in pairings if p.ended_at is not None and not p.void]
    games = [(p.first_id, p.second_id, p.result) for p in counted]
    in_play = {pk for p in pairings if p.ended_at is None for pk in (p.first_id, p.second_id)}
    bots = set(Profile.objects.filter(user__in=[e.player_id for e in entries.values()],
                                      is_bot=True).values_list("user_id", flat=True))
    if tournament.kind == Tournament.ARENA:
        rows = _arena_rows(tournament, entries, counted)
    else:
        order = sorted(entries, key=lambda pk: (entries[pk].joined_at, pk))
        if tournament.kind == Tournament.SWISS:
            ranked = swiss_standings(order, games, list(tournament.byes.filter(played=False).values_list(
                "entry_id", flat=True)))
        else:
            ranked = round_robin_table(order, games)
        rows = [{"entry": row.player, "points": entries[row.player].points,
                 "buchholz": row.buchholz, "sonneborn_berger": row.sonneborn_berger,
                 "games": row.games} for row in ranked]
    for rank, row in enumerate(rows, 1):
        entry = entries[row["entry"]]
        row.update(rank=rank, username=entry.player.username, player_id=entry.player_id,
                   withdrawn=entry.withdrawn, paused=entry.paused,
                   playing=entry.pk in in_play, bot=entry.player_id in bots)
    return rows


def _arena_rows(tournament, entries, counted):
    ratings = dict(Rating.objects.filter(game=tournament.game, user__in=[
        e.player_id for e in entries.values()]).values_list("user_id", "rating"))
    player_of = {pk: entry.player_id for pk, entry in entries.items()}
    played = {pk: [] for pk in entries}
    arena_games = {pk: [] for pk in entries}  # from each side, in the order they ended
    for p in counted:
        for side, me, other, score in ((0, p.first_id, p.second_id, p.result),
                                       (1, p.second_id, p.first_id, 1 - p.result)):
            played[me].append((ratings.get(player_of[other], START_RATING), score))
            arena_games[me].append(ArenaGame(score, berserk=p.berserk_of(side), actions=(
                p.first_actions, p.second_actions)[side]))
    rows = [{"entry": pk, "points": entries[pk].points, "games": len(played[pk]),
             "performance": performance(played[pk]),
             "fire": on_fire(arena_games[pk]), "sheet": sheet(arena_games[pk])}
            for pk in entries]
    rows.sort(key=lambda row: (-row["points"], -(row["performance"] or 0), row["entry"]))
    return rows
