"""Two (and more) players accept the same seek at the same instant from separate processes
sharing one SQLite file, as several Daphne processes would: exactly one game starts and every
other accepter is told the seek was taken (no error, no second game)."""
import json
import subprocess
import sys
import time

from siteservers import ROOT, migrate, server_env

ACCEPT = """
import json, os, time
from pathlib import Path
from django.contrib.auth import get_user_model
from lobby import services
user = get_user_model().objects.get(username={name!r})
Path({ready!r}).touch()
while not os.path.exists({go!r}):
    time.sleep(0.005)
try:
    game = services.accept_seek(user, {seek})
    print(json.dumps(["game", game.pk]))
except services.LobbyError as error:
    print(json.dumps(["refused", error.status, error.message]))
"""

SETUP = """
from django.contrib.auth import get_user_model
from lobby import services
from play.clock import TimeControl
User = get_user_model()
owner = User.objects.create_user("owner")
for name in {names!r}:
    User.objects.create_user(name)
seek = services.create_seek(owner, game="hadron", options={{"size": 5}},
                            time_control=TimeControl.untimed(), side="random")
print(seek.pk)
"""

REPORT = """
import json
from lobby.models import Seek
from play.models import Game
seek = Seek.objects.get(pk={seek})
print(json.dumps([Game.objects.count(), seek.status, seek.started_game_id,
                  seek.accepted_by.username]))
"""


def shell(env, code, **kwargs):
    return subprocess.Popen([sys.executable, "manage.py", "shell", "-v", "0", "-c", code],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, **kwargs)


def run(env, code):
    out, err = shell(env, code).communicate(timeout=120)
    assert not err.strip() or "Traceback" not in err, err
    return out.strip()


def wait_until_ready(racers, ready_files, timeout=120):
    """Each racer has started Django and loaded its user (which takes a while, and longer on a
    busy machine): then they can all accept at the same moment."""
    deadline = time.monotonic() + timeout
    while not all(path.exists() for path in ready_files):
        for racer in racers:
            assert racer.poll() is None, racer.communicate()[1]
        assert time.monotonic() < deadline, "the racers did not start"
        time.sleep(0.05)


def test_racing_processes_start_one_game(tmp_path):
    env = server_env(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    migrate(env)
    names = ["racer0", "racer1", "racer2", "racer3"]
    seek = int(run(env, SETUP.format(names=names)))
    go = tmp_path / "go"
    ready = [tmp_path / f"{name}.ready" for name in names]
    racers = [shell(env, ACCEPT.format(name=name, seek=seek, ready=str(path), go=str(go)))
              for name, path in zip(names, ready)]
    try:
        wait_until_ready(racers, ready)
    finally:
        go.touch()  # a racer left waiting would never end
    outcomes = []
    for racer in racers:
        out, err = racer.communicate(timeout=120)
        assert racer.returncode == 0, err
        outcomes.append(json.loads(out.strip().splitlines()[-1]))
    kinds = sorted(outcome[0] for outcome in outcomes)
    assert kinds == ["game", "refused", "refused", "refused"], outcomes
    refusals = [o[1:] for o in outcomes if o[0] == "refused"]
    assert refusals == [[409, "This seek was already accepted."]] * 3
    game_id = next(o[1] for o in outcomes if o[0] == "game")
    games, status, started, accepter = json.loads(run(env, REPORT.format(seek=seek)))
    assert (games, status, started) == (1, "taken", game_id)
    assert accepter == names[[o[0] for o in outcomes].index("game")]
