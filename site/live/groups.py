"""The channel layer's groups, named in one place: which sockets hear which news.

* `game(id)`: every socket on a game's page, players and spectators (play.broadcast).
* GAMES: every Watch socket, in every process: each game that starts, has an action or ends.
* LOBBY: every lobby socket: the seeks and challenges (lobby.services).
* `user(id)`: a person's lobby and notification sockets: their challenges, their `turn`s.
* `account(id)`: every socket of an account, which a password change or a deactivation
  closes (live.sessions).
* `token(id)`: every socket and API stream opened with a personal API token, which its
  revocation closes (api.tokens, live.sessions).
* `tournament(id)`: the sockets on a tournament's page (tournaments.news).
"""
GAMES = "games"
LOBBY = "lobby"


def game(game_id):
    return f"game-{game_id}"


def user(user_id):
    return f"user-{user_id}"


def account(user_id):
    return f"account-{user_id}"


def token(token_id):
    return f"token-{token_id}"


def tournament(tournament_id):
    return f"tournament-{tournament_id}"
