"""Can one account's computer games hold back another player's? The time another player waits
for the computer's first answer while one account floods the workers with computer games.

    python bench/bot_flood.py                        # 0, 20 and 60 flooding games, this checkout
    python bench/bot_flood.py --floods 0,20 --site /tmp/tessera-before   # another checkout
    python bench/bot_flood.py --site /tmp/tessera-before --site .        # both, side by side

For each checkout (`--site`, repeatable) and each count of `--floods`: a fresh Daphne process
of the embedded default (SQLite, the server's own pool of BOT_WORKERS worker processes, as the
README starts it), then the flooder posts the "Play the computer" form that many times (the
strongest level on Tripen's default board, the computer moving first, untimed: each game
queues up to ~1.6 s of thinking at once), and right after, the victim posts it once (Hadron
5x5, the strongest level, the computer moving first, 1+0). Measured: the seconds from the
victim's post to the computer's first action stored, and how much of its minute the computer's
clock lost by then. The flooder's posts refused (the cap: BOT_GAMES_PER_PLAYER) are counted.
Each server starts fresh and is left `--settle` seconds (5) before the posts, so the first
count also shows what starting the workers on the first job costs. In a checkout before the
fixes, the victim's game may end `no_start` instead: the computer's first move not made within
PLAY_FIRST_MOVE_SECONDS (30), its clock having run while its job waited. It prints figures; it is not a test. The machine's other load shows in them.

Before the fixes of issue 21 (items 1 and 26), the issue saw 0.9 s with no flood, 57 s with 20
games, 196 s with 60.
"""
import argparse
import http.cookiejar
import re
import sqlite3
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import bot_load  # noqa: E402
import live_load  # noqa: E402

PEOPLE = """
import json
from django.contrib.auth import get_user_model
from tessera_setup import create_sessions
User = get_user_model()
people = []
for name in ("flooder", "victim"):
    user, _ = User.objects.get_or_create(username=f"bench-{name}")
    people.append(user)
print(json.dumps(list(create_sessions(people).values())))
"""

FLOOD = {"computer-game": "tripen", "computer-tripen_size": "7", "computer-side": "second",
         "computer-time_kind": "untimed"}
VICTIM = {"computer-game": "hadron", "computer-hadron_size": "5", "computer-side": "second",
          "computer-time_kind": "realtime", "computer-minutes": "1",
          "computer-increment": "0"}


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class Person:
    """A logged-in browser: its session cookie, and the CSRF token the form page gives."""

    def __init__(self, url, session):
        self.url = url
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar),
                                                  NoRedirect)
        host = urllib.parse.urlparse(url).hostname
        self.jar.set_cookie(http.cookiejar.Cookie(
            0, "sessionid", session, None, False, host, False, False, "/", True, False, None,
            False, None, None, {}))
        page = self.opener.open(url + "/play/computer/", timeout=30).read().decode()
        self.token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]

    def start(self, fields, level):
        """Post the form; the new game's id, or None when it was refused."""
        data = urllib.parse.urlencode(dict(fields, **{"computer-level": str(level),
                                                      "csrfmiddlewaretoken": self.token}))
        request = urllib.request.Request(self.url + "/play/computer/", data=data.encode(),
                                         headers={"Referer": self.url + "/play/computer/"})
        try:
            self.opener.open(request, timeout=60)
        except urllib.error.HTTPError as answer:
            if answer.code == 302:
                return int(answer.headers["Location"].rstrip("/").split("/")[-1])
            if answer.code in (400, 409):
                return None
            raise
        return None


def measure(backend, sessions, floods, level, timeout, settle):
    server = live_load.Server("tessera.asgi:application", backend.env("tessera", f"f{floods}"),
                              backend.site, backend.scratch / f"flood{floods}.log", None)
    try:
        server.wait_until_up()
        # People arrive a little after a start, not in the same instant.
        time.sleep(settle)
        flooder, victim = (Person(server.url, session) for session in sessions)
        started = [flooder.start(FLOOD, level) for _ in range(floods)]
        posted = time.monotonic()
        game = victim.start(VICTIM, level)
        database = sqlite3.connect(backend.database_url.removeprefix("sqlite:///"), timeout=30)
        while True:
            row = database.execute("SELECT remaining0_ms FROM play_action WHERE game_id = ? AND "
                                   "ply = 0", (game,)).fetchone()
            if row is not None:
                waited, ended = time.monotonic() - posted, ""
                break
            ended = database.execute("SELECT reason FROM play_game WHERE id = ?",
                                     (game,)).fetchone()[0]
            if ended or time.monotonic() - posted > timeout:
                # The game ended without the computer's move (a first move not made in time).
                waited, row, ended = time.monotonic() - posted, (None,), ended or "timeout"
                break
            time.sleep(0.02)
        database.execute("UPDATE play_game SET status = 'aborted' WHERE status = 'active'")
        database.commit()
        database.close()
        used = None if row[0] is None else (60_000 - row[0]) / 1000
        return {"floods": floods, "accepted": sum(g is not None for g in started),
                "waited": waited, "clock_used": used, "ended": ended}
    finally:
        server.stop()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, action="append",
                        help="a checkout to measure (repeatable; default: this one)")
    parser.add_argument("--floods", default="0,20,60")
    parser.add_argument("--level", type=int, default=4, help="the computers' level (4)")
    parser.add_argument("--workers", type=int, default=2, help="BOT_WORKERS (2)")
    parser.add_argument("--settle", type=float, default=5,
                        help="seconds between the server answering and the first post (5)")
    parser.add_argument("--timeout", type=float, default=400,
                        help="seconds to wait for the victim's answer")
    args = parser.parse_args(argv)
    bot_load.BotBackend.workers = args.workers
    rows = []
    for site in args.site or [HERE.parent]:
        scratch = Path(tempfile.mkdtemp(prefix="tessera-bot-flood-"))
        backend = bot_load.BotBackend("sqlite", site.resolve(), scratch)
        try:
            backend.migrate()
            sessions = __import__("json").loads(backend.python(
                "import sys; sys.path.insert(0, %r)\n" % str(HERE) + PEOPLE, "people"))
            for floods in (int(n) for n in args.floods.split(",")):
                row = measure(backend, sessions, floods, args.level, args.timeout, args.settle)
                row["site"] = str(site)
                rows.append(row)
                print(row, file=sys.stderr, flush=True)
        finally:
            for server in list(live_load.LIVE_SERVERS):
                server.stop()
            backend.cleanup()
    print(f"\nThe victim's first computer answer (Hadron 5x5, level {args.level}, 1+0, the "
          f"computer first) while one account floods with Tripen 7x7 level {args.level} games "
          f"(the computer first); BOT_WORKERS={args.workers}, a fresh server each row")
    print(f"{'checkout':40} {'flood posted':>12} {'accepted':>8} {'answer s':>9} "
          f"{'clock used s':>12} ended")
    for row in rows:
        waited = f"{row['waited']:.1f}"
        used = "-" if row["clock_used"] is None else f"{row['clock_used']:.1f}"
        print(f"{row['site'][-40:]:40} {row['floods']:>12} {row['accepted']:>8} {waited:>9} "
              f"{used:>12} {row['ended'] or '-'}")


if __name__ == "__main__":
    main()
