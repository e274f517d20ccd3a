"""A running arena for bench/arena_load.py, written into a server's database before it starts.

    python bench/arena_setup.py PLAN.json RESULT.json      # with the server's environment

PLAN.json: {"prefix": "a1", "players": 500}. Makes `players` users with a session each (as
bench/tessera_setup.py does), an official Hadron 7x7 arena of 120 minutes at 3+2 that has
just started, every user in it, and the first pairing wave (tournaments.services.tick, the
server's own job: `players` / 2 games in play, started through play.services.start_game).
RESULT.json: {"tournament": id, "sessions": {user id: session key}}.
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from tessera_setup import create_players, create_sessions, setup_django  # noqa: E402


def main(plan_path, result_path):
    setup_django()
    from django.db import transaction
    from django.utils import timezone

    from play.clock import TimeControl
    from tournaments import services
    from tournaments.models import Entry

    plan = json.loads(Path(plan_path).read_text())
    with transaction.atomic():
        pairs = create_players(plan["prefix"], plan["players"] // 2)
        users = [user for pair in pairs for user in pair]
        sessions = create_sessions(users)
        arena = services.create(None, name="Bench arena", kind="arena", game="hadron",
                                options={"size": 7}, time_control=TimeControl.realtime(3, 2),
                                rated=True, starts_at=timezone.now(), minutes=120)
        Entry.objects.bulk_create([Entry(tournament=arena, player=user) for user in users],
                                  batch_size=500)
    services.tick()
    Path(result_path).write_text(json.dumps(
        {"tournament": arena.pk, "sessions": {str(k): v for k, v in sessions.items()}}))


if __name__ == "__main__":
    main(*sys.argv[1:3])
