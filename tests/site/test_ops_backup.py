"""`manage.py backup`: a copy of the SQLite database taken while another process writes games
and moves, restored to a fresh path, gives a working site."""
import subprocess
import sys
import time
import urllib.request

import pytest

from siteservers import ROOT, SiteServer, free_port, migrate, server_env

PASSWORD = "backup-pass-phrase-3390"

# Starts games and plays their first move, as fast as it can, until killed; prints each id.
WRITER = """
import sys
from django.contrib.auth import get_user_model
from play import services
from play.clock import TimeControl
User = get_user_model()
ana, ben = User.objects.get(username="ana"), User.objects.get(username="ben")
while True:
    game = services.start_game(game="hadron", options={}, players=(ana, ben),
                               time_control=TimeControl.untimed())
    services.play(game.pk, ana, 0, "c3")
    print(game.pk, flush=True)
"""


def test_backup_while_games_are_played_restores_to_a_working_site(tmp_path, site_servers):
    env = server_env(f"sqlite:///{tmp_path / 'live.sqlite3'}")
    migrate(env)
    server = SiteServer(env, free_port(), tmp_path / "unused.log")
    server.create_users(["ana", "ben"], PASSWORD)
    writer = subprocess.Popen([sys.executable, "manage.py", "shell", "-v", "0", "-c", WRITER],
                              cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert writer.stdout.readline().strip().isdigit(), "the writer is writing"
        result = server.manage("backup", tmp_path / "copy.sqlite3")
        assert "backed up" in result.stdout
        time.sleep(0.5)  # it goes on writing after the copy
    finally:
        writer.kill()
        writer.wait()
    with pytest.raises(RuntimeError, match="exists"):
        server.manage("backup", tmp_path / "copy.sqlite3")

    (tmp_path / "restored.sqlite3").write_bytes((tmp_path / "copy.sqlite3").read_bytes())
    restored = site_servers(f"sqlite:///{tmp_path / 'restored.sqlite3'}", migrate_first=False)
    restored.manage("migrate", "--check")  # every migration is in the copy
    counts = restored.shell(
        "from play.models import Game\n"
        "games = list(Game.objects.order_by('pk'))\n"
        "assert all(g.ply_count in (0, 1) for g in games)\n"
        "print(len(games), games[0].pk)").split()
    copied, first = int(counts[0]), int(counts[1])
    live = int(server.shell("from play.models import Game; print(Game.objects.count())"))
    assert 1 <= copied < live, "the copy is one moment in the middle of the writes"
    with urllib.request.urlopen(f"{restored.url}/game/{first}/", timeout=30) as response:
        assert response.status == 200
        assert "ana" in response.read().decode()


def test_backup_on_postgresql_says_to_use_pg_dump(tmp_path):
    env = server_env("postgres://nobody@127.0.0.1:1/none")
    result = subprocess.run([sys.executable, "manage.py", "backup", tmp_path / "x"], cwd=ROOT,
                            env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode != 0
    assert "pg_dump" in result.stderr
    assert not (tmp_path / "x").exists()
