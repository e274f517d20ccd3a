"""Racing processes on one tournament, as several Daphne processes would be: each ticks (arena
waves; every other racer as the server does, planning a wave without a lock and starting it
in slices) and ends games (resigning for a random player) as fast as it can, all at once,
for a few seconds. Used on SQLite (tests/tournaments/test_tournament_race.py) and on PostgreSQL
(tests/scale/test_tournament_race_pg.py). Afterwards: nobody was in two arena games at once,
every pairing ended once, and the standings equal a recomputation from the stored games."""
import json
import subprocess
import sys
import time

from siteservers import ROOT, migrate

SETUP = """
from datetime import timedelta
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from play.clock import TimeControl
from tournaments import services
User = get_user_model()
people = [User.objects.create_user(f"racer{n}") for n in range(10)]
now = timezone.now()
# Both events appear with all their players at once: a tick of any other process on this
# database would otherwise start an event due now with fewer than two players, and cancel it.
with transaction.atomic():
    arena = services.create(people[0], name="race arena", kind="arena", game="hadron",
                            options={"size": 5}, time_control=TimeControl("realtime", 3, 2),
                            rated=True, starts_at=now, minutes=30)
    robin = services.create(people[0], name="race robin", kind="roundrobin", game="hadron",
                            options={"size": 5},
                            time_control=TimeControl("correspondence", days=3),
                            rated=False, starts_at=now, double=True)
    for person in people[:8]:
        services.join(arena.pk, person)
    for person in people[4:]:
        services.join(robin.pk, person)
print(arena.pk, robin.pk)
"""

RACER = """
import os, random, time
from pathlib import Path
from play import services as play
from play.models import Game
from tournaments import services
from tournaments.models import Pairing
rng = random.Random({seed})
Path({ready!r}).touch()
while not os.path.exists({go!r}):
    time.sleep(0.005)
ended = refused = 0
stop = time.monotonic() + {seconds}
while time.monotonic() < stop:
    if {seed} % 2:  # the server's way: a wave planned without a lock, started in slices
        for tournament, pairs in services.slices(services.plan()):
            services.start_wave(tournament, pairs)
    else:
        services.tick()
    in_play = list(Pairing.objects.filter(ended_at__isnull=True).values_list("game_id", flat=True))
    rng.shuffle(in_play)
    for game_id in in_play[:8]:
        game = Game.objects.select_related("player0", "player1").get(pk=game_id)
        try:
            play.resign(game_id, rng.choice([game.player0, game.player1]), game.ply_count)
            ended += 1
        except play.PlayError:
            refused += 1
print(ended, refused)
"""

FINISH = """
from datetime import timedelta
from django.utils import timezone
from play import services as play
from tournaments import services
from tournaments.models import Pairing, Tournament
Tournament.objects.filter(pk={arena}).update(ends_at=timezone.now() - timedelta(seconds=1))
for pairing in Pairing.objects.filter(ended_at__isnull=True).select_related("game__player0"):
    play.resign(pairing.game_id, pairing.game.player0, pairing.game.ply_count)
services.tick()
"""

REPORT = """
import json
from play.models import Game
from tournaments.models import Pairing, Tournament
from tournaments.standings import table
out = {{}}
for pk in ({arena}, {robin}):
    event = Tournament.objects.get(pk=pk)
    out[event.kind] = {{
        "status": event.status,
        "games": [{{"players": [p.first.player.username, p.second.player.username],
                    "status": p.game.status, "winner": p.game.winner,
                    "ended": p.ended_at is not None,
                    "span": [p.created_at.timestamp(), p.ended_at.timestamp()]}}
                   for p in Pairing.objects.filter(tournament=event).select_related(
                       "game", "first__player", "second__player").order_by("ended_at", "pk")],
        "standings": {{row["username"]: row["points"] for row in table(event)}}}}
print(json.dumps(out))
"""


def shell(env, code, **kwargs):
    return subprocess.Popen([sys.executable, "manage.py", "shell", "-v", "0", "-c", code],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kwargs)


def run(env, code):
    out, err = shell(env, code).communicate(timeout=180)
    assert "Traceback" not in err, err
    return out.strip()


def race(env, tmp_path, racers=3, seconds=4):
    """Set up, race, finish; returns the report (see REPORT)."""
    from tournaments.formats.arena import ArenaGame, points

    migrate(env)
    arena, robin = map(int, run(env, SETUP).split())
    go = tmp_path / "go"
    ready = [tmp_path / f"racer{n}.ready" for n in range(racers)]
    processes = [shell(env, RACER.format(seed=n, ready=str(path), go=str(go), seconds=seconds))
                 for n, path in enumerate(ready)]
    try:
        deadline = time.monotonic() + 120
        while not all(path.exists() for path in ready):
            for process in processes:
                assert process.poll() is None, process.communicate()[1]
            assert time.monotonic() < deadline, "the racers did not start"
            time.sleep(0.05)
    finally:
        go.touch()
    ended = 0
    for process in processes:
        out, err = process.communicate(timeout=180)
        assert process.returncode == 0, err
        ended += int(out.split()[0])
    run(env, FINISH.format(arena=arena))
    report = json.loads(run(env, REPORT.format(arena=arena, robin=robin)))

    arena_report, robin_report = report["arena"], report["roundrobin"]
    assert arena_report["status"] == robin_report["status"] == "finished"
    assert len(robin_report["games"]) == 30  # every game of the double round robin, once
    assert len(arena_report["games"]) >= racers  # the race made waves
    for kind, event in report.items():
        games = event["games"]
        assert all(game["ended"] and game["status"] == "finished" for game in games)
        results = {name: [] for name in event["standings"]}
        for game in games:
            for index, name in enumerate(game["players"]):
                results[name].append(float(game["winner"] == index))
        if kind == "arena":
            expected = {name: points([ArenaGame(s) for s in scores])
                        for name, scores in results.items()}
            for name in results:
                spans = sorted(g["span"] for g in games if name in g["players"])
                assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), \
                    f"{name} was in two arena games at once"
        else:
            expected = {name: sum(scores) for name, scores in results.items()}
        assert event["standings"] == expected, kind
    return report
