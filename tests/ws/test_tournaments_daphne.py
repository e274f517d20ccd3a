"""Tournaments on a real Daphne server, played over the game sockets to the end: people log
in, one creates the event with the form, all join, and each plays whatever game the event
page says is theirs (random legal actions) until the event is over. The tick pairs them on
the server (arena waves, Swiss rounds); computer players fill an arena of two people. The
standings at the end are checked against a recomputation from the stored games."""
import asyncio
import json
import re
import time
import urllib.parse

import games
from tests.ws.bot_client import play_to_the_end
from tests.ws.live_client import WebSession
from tests.ws.messages import WAIT
from tournaments.formats.arena import ArenaGame, points

PASSWORD = "arena-daphne-pass-5523"
NAMES = ["arena-ana", "arena-ben", "arena-cy", "arena-dee"]
GAMES_BEFORE_THE_END = 4


def post_form(session, path, fields):
    page = session.opener.open(session.server.url + path, timeout=WAIT).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    data = urllib.parse.urlencode({"csrfmiddlewaretoken": token, **fields}).encode()
    with session.opener.open(session.server.url + path, data, timeout=WAIT) as response:
        return urllib.parse.urlparse(response.geturl()).path


def arena_form(**extra):
    fields = {"name": "Socket arena", "kind": "arena", "game": "hadron", "starts_in": 0,
              "duration": 20, "time_kind": "realtime", "minutes": 3, "increment": 2,
              "rated": "rated", **extra}
    for name in games.names():
        engine = games.get(name)
        for option in engine.option_choices():
            fields[f"{name}_{option}"] = engine.defaults[option]
    fields["hadron_size"] = 5
    return fields


def get_json(session, path):
    with session.opener.open(session.server.url + path, timeout=WAIT) as response:
        return json.loads(response.read())


async def play_the_arena(session, name, event_path, seed):
    """Play every game the event gives this player until the arena is finished."""
    played = 0
    while True:
        data = await asyncio.to_thread(get_json, session, event_path + "standings.json")
        if data["my_game"]:
            await play_to_the_end(session.server, data["my_game"], session.cookie("sessionid"),
                                  name, spectator=False, seed=seed + played)
            played += 1
        elif data["status"] in ("finished", "cancelled"):
            return played
        else:
            await asyncio.sleep(0.3)


async def play_until_ended(server, sessions, event_path, event_id, names=NAMES):
    players = [asyncio.create_task(play_the_arena(session, name, event_path, seed))
               for seed, (name, session) in enumerate(zip(names, sessions))]
    deadline = time.monotonic() + 20 * WAIT
    while True:
        assert time.monotonic() < deadline, "the arena's games never came"
        ended = int(await asyncio.to_thread(server.shell, (
            "from tournaments.models import Pairing\n"
            f"print(Pairing.objects.filter(tournament_id={event_id}, "
            "ended_at__isnull=False).count())")))
        if ended >= GAMES_BEFORE_THE_END:
            break
        await asyncio.sleep(1)
    # The arena's end: no new game starts; games in play finish and count.
    await asyncio.to_thread(server.shell, (
        "from django.utils import timezone\nfrom tournaments.models import Tournament\n"
        f"Tournament.objects.filter(pk={event_id}).update(ends_at=timezone.now())"))
    return await asyncio.wait_for(asyncio.gather(*players), 10 * WAIT)


def join_event(server, names, form):
    """Log `names` in, the first creates the event with `form`, all join; (sessions, event
    path, event id)."""
    server.create_users(names, PASSWORD)
    sessions = []
    for name in names:
        session = WebSession(server)
        session.log_in(name, PASSWORD)
        sessions.append(session)
    event_path = post_form(sessions[0], "/tournaments/new/", form)
    assert re.fullmatch(r"/tournaments/\d+/", event_path), event_path
    event_id = int(event_path.strip("/").split("/")[-1])
    for session in sessions:
        assert session.post_json(event_path + "join/")["ok"]
    return sessions, event_path, event_id


def start_now(server, event_id):
    """Bring the start of an event everyone has joined forward to now."""
    server.shell("from django.utils import timezone\nfrom tournaments.models import Tournament\n"
                 f"Tournament.objects.filter(pk={event_id}).update(starts_at=timezone.now())")


def stored_event(server, event_id):
    return json.loads(server.shell(
        "import json\nfrom tournaments.models import Pairing, Tournament\n"
        "from tournaments.standings import table\n"
        f"event = Tournament.objects.get(pk={event_id})\n"
        "games = [{'players': [p.game.player0.username, p.game.player1.username],\n"
        "          'status': p.game.status, 'winner': p.game.winner,\n"
        "          'span': [p.created_at.timestamp(), p.ended_at.timestamp()]}\n"
        "         for p in Pairing.objects.filter(tournament=event).select_related(\n"
        "             'game__player0', 'game__player1').order_by('ended_at', 'pk')]\n"
        "print(json.dumps({'status': event.status, 'games': games,\n"
        "                  'standings': {r['username']: r['points'] for r in table(event)}}))"))


def results_of(stored):
    """Each player's scores, in the order their games ended, from the stored games."""
    results = {name: [] for name in stored["standings"]}
    for game in stored["games"]:
        for index, name in enumerate(game["players"]):
            results[name].append(0.5 if game["winner"] is None
                                 else float(game["winner"] == index))
    return results


def test_four_people_play_an_arena_to_the_end_over_the_sockets(site_servers):
    server = site_servers(TOURNAMENT_TICK="0.5")
    sessions, event_path, event_id = join_event(server, NAMES, arena_form())

    played = asyncio.run(play_until_ended(server, sessions, event_path, event_id))

    assert sum(played) >= 2 * GAMES_BEFORE_THE_END
    stored = stored_event(server, event_id)
    assert stored["status"] == "finished"
    assert all(game["status"] == "finished" for game in stored["games"])
    results = results_of(stored)
    assert stored["standings"] == {name: points([ArenaGame(s) for s in scores])
                                   for name, scores in results.items()}
    # Nobody was in two games of the arena at once.
    for name in NAMES:
        spans = sorted(game["span"] for game in stored["games"] if name in game["players"])
        assert all(earlier[1] <= later[0] for earlier, later in zip(spans, spans[1:]))


def test_two_people_and_the_computers_play_an_arena_to_the_end(site_servers):
    # The server's own pool of workers runs the computers' moves, whatever the run's Redis.
    server = site_servers(TOURNAMENT_TICK="0.5", TOURNAMENT_COMPUTERS="1", JOBS_MODE="pool",
                          JOBS_SWEEP="1")
    names = ["duo-ana", "duo-ben"]
    # Both join before the start: the tick of a running arena enters computers for the people
    # in so far (three beside one person), and one that entered stays in the standings after
    # it withdrew for the second person, so a tick between the two joins made three.
    sessions, event_path, event_id = join_event(server, names,
                                                arena_form(name="Duo arena", starts_in=10))
    start_now(server, event_id)

    asyncio.run(play_until_ended(server, sessions, event_path, event_id, names=names))

    stored = stored_event(server, event_id)
    assert stored["status"] == "finished"
    computers = [name for name in stored["standings"] if name.startswith("computer-level-")]
    assert len(computers) == 2
    for game in stored["games"]:
        assert not set(game["players"]) <= set(computers)  # computers only play people
    assert any(set(game["players"]) & set(computers) for game in stored["games"])
    assert stored["standings"] == {name: points([ArenaGame(s) for s in scores])
                                   for name, scores in results_of(stored).items()}


def test_five_people_play_a_swiss_event_round_by_round_with_byes_to_the_end(site_servers):
    server = site_servers(TOURNAMENT_TICK="0.5")
    names = ["swiss-ana", "swiss-ben", "swiss-cy", "swiss-dee", "swiss-eve"]
    # Everyone joins before the start (a Swiss event that starts with fewer than two players
    # ends at once: its first round cannot be paired), then the start is brought forward.
    sessions, event_path, event_id = join_event(
        server, names, arena_form(name="Socket Swiss", kind="swiss", rounds=3, duration="",
                                  starts_in=10))
    start_now(server, event_id)

    async def everyone():
        return await asyncio.wait_for(asyncio.gather(*(
            play_the_arena(session, name, event_path, seed)
            for seed, (name, session) in enumerate(zip(names, sessions)))), 20 * WAIT)

    played = asyncio.run(everyone())

    stored = stored_event(server, event_id)
    assert stored["status"] == "finished"
    assert len(stored["games"]) == 3 * 2 and sorted(played) == [2, 2, 2, 3, 3]
    met = [frozenset(game["players"]) for game in stored["games"]]
    assert len(met) == len(set(met))  # no pairing twice
    byes = json.loads(server.shell(
        "import json\nfrom tournaments.models import Bye\n"
        f"print(json.dumps(list(Bye.objects.filter(tournament_id={event_id})"
        ".values_list('entry__player__username', flat=True))))"))
    assert len(byes) == len(set(byes)) == 3
    assert stored["standings"] == {name: sum(scores) + byes.count(name)
                                   for name, scores in results_of(stored).items()}
