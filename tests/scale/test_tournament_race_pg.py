"""The tournament race of tests/tournaments/racing.py on PostgreSQL, where the processes'
transactions really run side by side: the tick's row lock on the event keeps a player out
of two arena games, the ending's locks on the two entries keep a round robin's simultaneous
ends from losing a point."""

from siteservers import server_env
from tests.tournaments.racing import race

def test_racing_processes_on_postgresql_pair_once_and_count_once(scale_database_url, tmp_path):
    race(server_env(scale_database_url), tmp_path, racers=4)
