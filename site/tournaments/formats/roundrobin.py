"""Round robin: everyone meets everyone, by Berger tables (the circle method: the last player
stays put, the others turn one place a round; the fixed player's side alternates, so every
player moves first in half their games, give or take one). An odd field gets a sitting-out
place. Double round robin: the same rounds again, sides swapped.
"""

MIN_PLAYERS, MAX_PLAYERS = 3, 10


def berger_rounds(players, double=False):
    """The rounds as lists of (first, second) pairs; a player who sits a round out is in none
    of its pairs."""
    seats = list(players)
    if len(seats) % 2:
        seats.append(None)
    count = len(seats)
    fixed = count - 1
    rounds = []
    for number in range(count - 1):
        pairs = []
        for board in range(count // 2):
            if board == 0:
                home, away = number, fixed
                if number % 2:
                    home, away = away, home
            else:
                home = (number + board) % (count - 1)
                away = (number - board) % (count - 1)
                if board % 2:
                    home, away = away, home
            first, second = seats[home], seats[away]
            if first is not None and second is not None:
                pairs.append((first, second))
        rounds.append(pairs)
    if double:
        rounds += [[(second, first) for first, second in pairs] for pairs in rounds]
    return rounds
