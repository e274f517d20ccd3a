"""examples/bot.py, run as its README says, against a real Daphne server: it accepts a
person's challenge and plays the game to its end through the HTTP API, while the person plays
through the API too (same engine search, in this process). Bounded: a 5x5 board, a deadline,
the bot's process killed if it overruns."""
import importlib.util
import os
import subprocess
import sys
import time

import pytest

from siteservers import ROOT
from tests.ws.api_client import Api
from tests.ws.test_api_streams_daphne import make_tokens

DEADLINE_S = 150
CHALLENGE = {"game": "hadron", "hadron_size": 5, "time_kind": "untimed", "side": "first",
             "rated": "rated"}


def example_bot():
    spec = importlib.util.spec_from_file_location("example_bot", ROOT / "examples" / "bot.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def server(module_site_servers):
    # The token's default rate (120 requests a minute): the bot keeps within it.
    return module_site_servers()


def test_the_example_bot_accepts_a_challenge_and_plays_it_to_the_end(server):
    secrets = make_tokens(server, "botfan", "examplebot")
    person = Api(server, secrets["person"])
    bot = subprocess.Popen(
        [sys.executable, "examples/bot.py", "--url", server.url, "--level", "1", "--games", "1",
        ],
        cwd=ROOT, env={**os.environ, "TESSERA_TOKEN": secrets["bot"]},
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    person_events = person.stream("/stream/event")
    try:
        person.ok("POST", "/challenges", {**CHALLENGE, "opponent": "examplebot"})
        helper = example_bot()
        deadline = time.monotonic() + DEADLINE_S
        game_id = person_events.until(lambda line: line["type"] == "game_started",
                                      deadline_s=60)["game_id"]
        # The person follows the game's stream and moves whenever it is their turn.
        game_stream = person.stream(f"/stream/game/{game_id}")
        try:
            while True:
                assert time.monotonic() < deadline, "the game did not end in time"
                line = game_stream.next(deadline_s=deadline - time.monotonic())
                if line is None:
                    break  # the stream ends after the game's end
                if line["type"] not in ("snapshot", "action"):
                    continue
                game = person.ok("GET", f"/games/{game_id}")
                if game["status"] == "active" and helper.my_turn(game):
                    person.ok("POST", f"/games/{game_id}/play",
                              {"ply": game["state"]["ply"], "action": helper.choose(game, 1)})
        finally:
            game_stream.close()
        game = person.ok("GET", f"/games/{game_id}")
        output, _ = bot.communicate(timeout=max(5, deadline - time.monotonic()))
    finally:
        person_events.close()
        if bot.poll() is None:
            bot.kill()
            bot.wait()
    assert bot.returncode == 0, output
    assert "accepted botfan's challenge" in output
    assert f"game {game_id} is over" in output
    assert game["rated"] is True
    # Played to the end: a result on the board, nobody resigned or lost on time.
    assert game["result"]["reason"] == "normal" and game["result"]["winner"] in (0, 1), game
    assert any(line.startswith(f"game {game_id}: played") for line in output.splitlines())
