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

With Redis, most groups have a channel of their own, which the processes holding a member
socket subscribe to; the `site_wide()` groups share one (live.layers.RedisNewsLayer).
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


# Each move tells the Watch sockets and both players' lobby sockets, a few sockets anywhere on
# the site: with a Redis channel a group, that was three PUBLISHes a move besides the game's.
# The groups every socket joins (its account's, its token's) keep channels of their own: they
# hear almost nothing, and a process on the site channel decodes all of its news.
def site_wide(group):
    """Whether `group`'s news travels on the channel every process with a member of such a
    group hears (at scale), not on a channel of its own."""
    return group in (GAMES, LOBBY) or group.startswith("user-")
