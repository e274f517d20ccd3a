#!/usr/bin/env python3
"""An example bot for Tessera's HTTP API (docs/api.md): it logs in with a personal token,
accepts the challenges it receives and plays its games with the engine's own search
(games.bots) at a chosen level, until it has finished the number of games asked for.

It uses only the documented API and Python's standard library (urllib) for HTTP:

    TESSERA_TOKEN=tsr_... python examples/bot.py --url http://127.0.0.1:8000 --level 2

The token belongs to a bot account (Settings -> API tokens -> Upgrade to a bot account) and
has the `bot` scope. The bot follows its account's event stream (challenges received, and a
`turn` event whenever one of its games starts, moves or ends), so it sends two requests a
move (the game's state, its action) and none while nothing happens: well within the token's
rate limit (120 requests a minute by default).
"""
import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

# The engine is the repository's `games` package (run from a checkout).
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import games  # noqa: E402
from games import bots  # noqa: E402


STREAM_TIMEOUT = 60  # seconds without a byte, keep-alives included, before reconnecting
RECONNECT_SECONDS = 2


class ApiError(Exception):
    def __init__(self, status, body):
        super().__init__(f"{status}: {body.get('error')}: {body.get('message')}")
        self.status, self.code = status, body.get("error")


class Client:
    def __init__(self, url, token):
        self.url, self.token = url.rstrip("/"), token

    def request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + "/api/v1" + path, data=data, method=method)
        # The token goes in the header only: never in a URL, never printed.
        request.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        while True:
            try:
                with urllib.request.urlopen(request, timeout=30) as answer:
                    return json.loads(answer.read() or b"null")
            except urllib.error.HTTPError as error:
                if error.code == 429:  # over the token's rate: wait as told, then again
                    time.sleep(int(error.headers.get("Retry-After", "1")))
                    continue
                raise ApiError(error.code, json.loads(error.read() or b"{}")) from None

    def get(self, path):
        return self.request("GET", path)

    def post(self, path, body=None):
        return self.request("POST", path, body if body is not None else {})


def my_turn(game):
    """The position and whether it is the bot's move, from the game's snapshot."""
    if game["status"] != "active" or game["you"] is None:
        return False
    return game["state"]["to_move"] == game["players"][game["you"]]["side"]


def choose(game, level):
    state = games.get(game["game"]).replay(game["options"], game["actions"])
    return bots.choose(state, level=level)


def events(client):
    """The account's event stream (GET /api/v1/stream/event, NDJSON): one JSON object a line,
    an empty line now and then to say the connection is alive."""
    request = urllib.request.Request(client.url + "/api/v1/stream/event")
    request.add_header("Authorization", f"Bearer {client.token}")
    # Longer than the server's keep-alive: a read that waits this long means a dead connection.
    with urllib.request.urlopen(request, timeout=STREAM_TIMEOUT) as stream:
        for line in stream:
            if line.strip():
                yield json.loads(line)


def play_if_my_turn(client, game_id, level, log):
    game = client.get(f"/games/{game_id}")
    if not my_turn(game):
        return
    action = choose(game, level)
    try:
        client.post(f"/games/{game_id}/play", {"ply": game["state"]["ply"], "action": action})
        log(f"game {game_id}: played {action}")
    except ApiError as error:
        if error.code not in ("stale", "game_over"):  # the game moved on: the stream says so
            raise


def run(client, level, wanted_games, log=print):
    """Follow the event stream: accept each challenge received, move whenever a game says it
    is the bot's turn, count the games that end; reconnect if the stream drops."""
    me = client.get("/account")["username"]
    log(f"playing as {me} at level {level}")
    finished = set()
    while True:
        try:
            for event in events(client):
                kind = event["type"]
                if kind == "challenge_added" and event["challenge"]["to"] == me:
                    challenge = event["challenge"]
                    try:
                        started = client.post(f"/challenges/{challenge['id']}/accept")
                    except ApiError as error:  # withdrawn meanwhile
                        log(f"challenge {challenge['id']}: {error}")
                        continue
                    log(f"accepted {challenge['from']}'s challenge: game {started['game_id']}")
                elif kind == "turn" and event["over"] and event["game_id"] not in finished:
                    finished.add(event["game_id"])
                    result = client.get(f"/games/{event['game_id']}")["result"]
                    log(f"game {event['game_id']} is over: {result['text']}")
                    if wanted_games is not None and len(finished) >= wanted_games:
                        return len(finished)
                elif kind == "turn" and event["your_turn"]:
                    play_if_my_turn(client, event["game_id"], level, log)
        except (OSError, urllib.error.URLError) as error:  # dropped: wait, then again
            log(f"the event stream dropped ({error}); reconnecting")
            time.sleep(RECONNECT_SECONDS)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000", help="the site's address")
    parser.add_argument("--level", type=int, default=2, choices=sorted(bots.LEVELS))
    parser.add_argument("--games", type=int, default=None, help="stop after this many games")
    args = parser.parse_args(argv)
    token = os.environ.get("TESSERA_TOKEN")
    if not token:
        parser.error("set TESSERA_TOKEN to the bot's API token")
    run(Client(args.url, token), args.level, args.games,
        log=lambda line: print(line, flush=True))


if __name__ == "__main__":
    main()
