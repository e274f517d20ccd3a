"""Arena (lichess's format): free players are paired in waves, near rank, and score points.

Pairing: the waiting players in rank order (best first); each in turn meets the nearest
player below it who is still unpaired and is not the opponent of its last game. Two players
who were each other's last opponent meet again only when they are the only two waiting. A
player nobody can take waits for the next wave (at most one player waits unless every pair of
those left just played each other).

Points: a win 2, a draw 1, a loss 0. After two wins in a row the player is on a streak (the
flame): each further win counts double (4) until a game is not won. A berserk player (who
halved their own clock at the start) gets one extra point for a win reached after at least
BERSERK_MIN_ACTIONS actions of their own; the extra point is not doubled.
"""
from dataclasses import dataclass

WIN, DRAW, LOSS = 2, 1, 0
STREAK_AFTER = 2
BERSERK_MIN_ACTIONS = 7


def pair_wave(waiting, last_opponent):
    """Pairs for one wave. `waiting`: the free players in rank order, best first;
    `last_opponent`: player -> the opponent of their last game (absent: none). Returns a list
    of (higher-ranked, lower-ranked) pairs; who moves first is `sides`'s to say."""
    players = list(dict.fromkeys(waiting))
    if len(players) == 2:
        return [(players[0], players[1])]
    paired = set()
    pairs = []
    for index, player in enumerate(players):
        if player in paired:
            continue
        for other in players[index + 1:]:
            if other in paired or _just_met(player, other, last_opponent):
                continue
            paired.update((player, other))
            pairs.append((player, other))
            break
    return pairs


def _just_met(a, b, last_opponent):
    return last_opponent.get(a) == b or last_opponent.get(b) == a


def sides(a, b, balance):
    """(first, second) for a pair: the player who has moved first less often (`balance`:
    player -> games first minus games second) moves first; on a tie, the first named."""
    return (b, a) if balance.get(b, 0) < balance.get(a, 0) else (a, b)


@dataclass(frozen=True)
class ArenaGame:
    """One finished game from one player's side: `result` 1, 0.5 or 0; `berserk`: the player
    halved their clock; `actions`: how many actions the player made."""
    result: float
    berserk: bool = False
    actions: int = 0


def game_points(games):
    """The points of each game in order (a list of ints), streaks and berserk counted."""
    points = []
    wins_in_row = 0
    for game in games:
        if game.result == 1:
            on_fire = wins_in_row >= STREAK_AFTER
            earned = WIN * (2 if on_fire else 1)
            if game.berserk and game.actions >= BERSERK_MIN_ACTIONS:
                earned += 1
            wins_in_row += 1
        else:
            earned = DRAW if game.result == 0.5 else LOSS
            wins_in_row = 0
        points.append(earned)
    return points


def sheet(games):
    """Each game's mark in the standings, in order (lichess's score sheet): its points,
    whether they were doubled by a streak (the flame), whether the player went berserk in it
    and whether that earned the extra point."""
    marks = []
    wins_in_row = 0
    for game, earned in zip(games, game_points(games)):
        doubled = game.result == 1 and wins_in_row >= STREAK_AFTER
        wins_in_row = wins_in_row + 1 if game.result == 1 else 0
        marks.append({"points": earned, "doubled": doubled, "berserk": game.berserk,
                      "berserk_point": (game.berserk and game.result == 1
                                        and game.actions >= BERSERK_MIN_ACTIONS)})
    return marks


def on_fire(games):
    """Whether the player's next win counts double (the flame shown in the standings)."""
    wins_in_row = 0
    for game in games:
        wins_in_row = wins_in_row + 1 if game.result == 1 else 0
    return wins_in_row >= STREAK_AFTER


def points(games):
    return sum(game_points(games))
