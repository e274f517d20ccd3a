"""A person playing the computer against a running server, as a browser would: the "Play the
computer" form posted over HTTP (it lands on the game page), then the game socket; the
person's moves are random legal actions worked out with the engine. Shared by the embedded
(tests/ws) and scale (tests/scale) tests."""
import random
import re
import urllib.parse

import games
from tests.ws.live_client import LiveSocket, WebSession
from tests.ws.messages import WAIT

# The smallest board of each game: the quickest games to play to the end.
SMALLEST = {"colorful": {"board": "hexhex", "size": 3}, "copolymer": {"size": 4},
            "hadron": {"size": 5}, "tripen": {"size": 5}}


def computer_form(game, options, level=1, side="first", minutes=None, increment=0):
    fields = {"computer-game": game, "computer-level": level, "computer-side": side,
              "computer-time_kind": "realtime" if minutes else "untimed"}
    if minutes:
        fields.update({"computer-minutes": minutes, "computer-increment": increment})
    fields.update({f"computer-{game}_{option}": value for option, value in options.items()})
    return fields


def start_against_computer(session: WebSession, **form):
    """Post the form as the logged-in `session`; returns the game page's path."""
    page = session.opener.open(session.server.url + "/play/computer/", timeout=WAIT).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    data = urllib.parse.urlencode({"csrfmiddlewaretoken": token, **form}).encode()
    with session.opener.open(session.server.url + "/play/computer/", data,
                             timeout=WAIT) as response:
        path = urllib.parse.urlparse(response.geturl()).path
    assert re.fullmatch(r"/game/\d+/", path), f"the form led to {path}, not a game page"
    return path


async def next_of(reader, *kinds):
    """The next message of one of `kinds`; background news is remembered, other news (chat,
    takeback news) passed over."""
    while True:
        message = await reader.receive(WAIT)
        if message["type"] in kinds:
            return message
        reader.remember(message)


async def play_to_the_end(server, path, cookie, name, spectator=True, seed=1):
    """Play random legal actions whenever it is the person's turn until the game ends; the
    computer answers by itself. Checks that a spectator sees every action, in order. Returns
    (the end's result, the actions)."""
    rng = random.Random(seed)
    me = LiveSocket(server, path, cookie, name)
    watcher = LiveSocket(server, path, None, "spectator") if spectator else None
    try:
        snapshot = await me.open()
        # What the spectator's snapshot already shows, it is not sent again.
        seen = list((await watcher.open())["actions"]) if watcher else []
        you, engine, options = snapshot["you"], games.get(snapshot["game"]), snapshot["options"]
        actions = list(snapshot["actions"])
        end = snapshot["result"] if snapshot["status"] != "active" else None
        sent = None
        while True:
            state = engine.replay(options, actions)
            if end is not None and (state.is_over or end["reason"] != "normal"):
                break
            if not state.is_over and state.person_to_move == you and sent != len(actions):
                sent = len(actions)
                await me.send(type="play", ply=sent, action=rng.choice(state.legal_actions()))
            message = await next_of(me, "action", "end")
            if message["type"] == "end":
                end = message["result"]
            elif message["ply"] < len(actions):
                # News of an action the snapshot already had (sent while the socket joined).
                assert message["action"] == actions[message["ply"]], message
            else:
                assert message["ply"] == len(actions), message
                actions.append(message["action"])
                # The action that ends the game carries the result (no separate `end`).
                end = message.get("result") or end
        if watcher:
            await watcher.catch_up(seen, len(actions))
            assert seen == actions
        return end, actions
    finally:
        for socket in (me, watcher):
            if socket is not None and socket.ws is not None:
                await socket.close()
