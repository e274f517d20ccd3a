"""Users, sessions and games for bench/live_load.py, written into a server's database.

    python bench/tessera_setup.py PLAN.json RESULT.json     # with the server's environment

Run with the environment of the Tessera server to be measured (DATABASE_URL, SECRET_KEY, ...)
and the checkout's site/ on PYTHONPATH; it sets Django up itself. PLAN.json:

    {"prefix": "b1", "slots": 50, "games_per_slot": 3, "spectator_games": 0}

Each slot gets two users of its own (player 0 and player 1 of all its games, one user per
player socket so that the per-user socket cap never counts two slots together) with a
session each, and `games_per_slot` untimed Hadron 7x7 games between them (untimed: no clock
can flag during a run). `spectator_games` more games are for spectators only (the idle run,
the probe sockets). RESULT.json:

    {"slots": [{"sessions": [key0, key1], "games": [id, ...]}, ...], "spectator_games": [id, ...]}

Users and sessions are written in bulk (no password hashing: the sockets authenticate by the
session cookie, as after a log-in); games go through play.services.start_game, as the lobby
starts them.
"""
import json
import os
import sys
from datetime import timedelta

import django


def setup_django():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tessera.settings")
    django.setup()


def create_players(prefix, slots):
    from django.contrib.auth import get_user_model
    User = get_user_model()
    users = []
    for slot in range(slots):
        for side in (0, 1):
            user = User(username=f"{prefix}s{slot}p{side}")
            user.set_unusable_password()
            users.append(user)
    User.objects.bulk_create(users, batch_size=500)
    by_name = {u.username: u for u in User.objects.filter(username__startswith=f"{prefix}s")}
    return [(by_name[f"{prefix}s{slot}p0"], by_name[f"{prefix}s{slot}p1"]) for slot in range(slots)]


def create_sessions(users):
    """One session per user, as django.contrib.auth.login() leaves it."""
    from django.conf import settings
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.utils import timezone
    from django.utils.crypto import get_random_string

    store = SessionStore()
    expires = timezone.now() + timedelta(days=1)
    rows, keys = [], {}
    for user in users:
        key = get_random_string(32, "abcdefghijklmnopqrstuvwxyz0123456789")
        data = {"_auth_user_id": str(user.pk), "_auth_user_backend": settings.AUTHENTICATION_BACKENDS[-1],
                "_auth_user_hash": user.get_session_auth_hash()}
        rows.append(Session(session_key=key, session_data=store.encode(data), expire_date=expires))
        keys[user.pk] = key
    Session.objects.bulk_create(rows, batch_size=500)
    return keys


def create_games(pairs, count):
    from play.clock import TimeControl
    from play.services import start_game
    return [start_game(game="hadron", options={"size": 7}, players=pairs,
                       time_control=TimeControl.untimed()).pk for _ in range(count)]


def main(plan_path, result_path):
    setup_django()
    from django.db import transaction

    plan = json.loads(open(plan_path).read())
    with transaction.atomic():
        pairs = create_players(plan["prefix"], plan["slots"])
        sessions = create_sessions([user for pair in pairs for user in pair])
    slots = []
    for pair in pairs:
        with transaction.atomic():
            games = create_games(pair, plan["games_per_slot"])
        slots.append({"sessions": [sessions[pair[0].pk], sessions[pair[1].pk]], "games": games})
    spectator_games = []
    if plan.get("spectator_games"):
        host = create_players(plan["prefix"] + "x", 1)[0]
        with transaction.atomic():
            spectator_games = create_games(host, plan["spectator_games"])
    with open(result_path, "w") as out:
        json.dump({"slots": slots, "spectator_games": spectator_games}, out)


if __name__ == "__main__":
    main(*sys.argv[1:3])
