"""Standings and tie-breaks, from finished games.

A game is (first, second, result) with `result` the first player's score: 1, 0.5 or 0. A bye
is worth one point and adds nothing to the tie-breaks (it has no opponent).

* Buchholz: the sum of the final scores of the player's opponents (strength of the field met).
* Sonneborn-Berger: the sum, over the player's games, of the opponent's final score times the
  player's score in that game (wins over strong players weigh most).
* Direct encounter: among the players still tied after those, the points each scored in the
  games between them.
* Tournament performance rating: the mean rating of the opponents met plus 400 times
  (wins - losses) / games (the "algorithm of 400"); none before a first game.
"""
from collections import defaultdict
from dataclasses import dataclass


@dataclass
class Row:
    player: object
    points: float
    buchholz: float = 0
    sonneborn_berger: float = 0
    direct: float = 0
    games: int = 0


def scores(players, games, byes=()):
    """player -> points."""
    points = {player: 0.0 for player in players}
    for first, second, result in games:
        points[first] += result
        points[second] += 1 - result
    for player in byes:
        points[player] += 1
    return points


def swiss_standings(players, games, byes=()):
    """Rows best first: points, Buchholz, Sonneborn-Berger, direct encounter, then the order
    of `players` (e.g. by rating)."""
    return _ranked(players, games, byes, ("points", "buchholz", "sonneborn_berger"))


def round_robin_table(players, games):
    """Rows best first: points, Sonneborn-Berger, direct encounter (everyone met the same
    field, so Buchholz says nothing)."""
    return _ranked(players, games, (), ("points", "sonneborn_berger"))


def _ranked(players, games, byes, keys):
    points = scores(players, games, byes)
    rows = {player: Row(player, points[player]) for player in players}
    for first, second, result in games:
        for player, opponent, score in ((first, second, result), (second, first, 1 - result)):
            row = rows[player]
            row.games += 1
            row.buchholz += points[opponent]
            row.sonneborn_berger += points[opponent] * score
    order = {player: index for index, player in enumerate(players)}
    tied = defaultdict(list)
    for row in rows.values():
        tied[tuple(getattr(row, key) for key in keys)].append(row.player)
    for group in tied.values():
        if len(group) > 1:
            members = set(group)
            among = [game for game in games if game[0] in members and game[1] in members]
            for player, score in scores(group, among).items():
                rows[player].direct = score
    return sorted(rows.values(), key=lambda row: tuple(-getattr(row, key) for key in keys)
                  + (-row.direct, order[row.player]))


def performance(results):
    """`results`: (opponent's rating, score) per game; None without games."""
    if not results:
        return None
    mean = sum(rating for rating, _ in results) / len(results)
    wins = sum(1 for _, score in results if score == 1)
    losses = sum(1 for _, score in results if score == 0)
    return round(mean + 400 * (wins - losses) / len(results))
