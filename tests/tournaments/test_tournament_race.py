"""Racing server processes on one SQLite file tick the same arena and end the same games at
once (tests/tournaments/racing.py): nobody is in two arena games at once, every game counts
once, and the standings equal a recomputation from the stored games. The same race on
PostgreSQL is tests/scale/test_tournament_race_pg.py."""
from siteservers import server_env
from tests.tournaments.racing import race


def test_racing_processes_pair_each_player_once_and_count_each_end_once(tmp_path):
    race(server_env(f"sqlite:///{tmp_path / 'db.sqlite3'}"), tmp_path)
