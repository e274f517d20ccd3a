"""The visitors of bench/pages_load.py, for Locust (run headless by that script).

PAGES_MODE=mix: each visitor asks, with no think time, for a page of the mix (home, Watch,
Archive, a finished game's page, its page at ?ply=5, its snapshot, the leaderboard, a rules
page), one after another at random; PAGES_MODE=plain: the plain view (bench/pages_urls.py) of
PAGES_PLAIN_BYTES, the mix's mean page size. PAGES_GAMES: the finished games' ids, by commas."""
import os
import random

from locust import FastHttpUser, constant, task

MODE = os.environ.get("PAGES_MODE", "mix")
GAMES = [int(n) for n in os.environ.get("PAGES_GAMES", "1").split(",")]
PLAIN = f"/bench-plain/?bytes={os.environ.get('PAGES_PLAIN_BYTES', '30000')}"
RULES = ["hadron", "copolymer", "colorful", "tripen"]


def mix_pages():
    """(name, path) of one pick of each page of the mix: the name groups Locust's figures."""
    game = random.choice(GAMES)
    return [("home", "/"), ("watch", "/watch/"), ("archive", "/archive/"),
            ("game", f"/game/{game}/"), ("game?ply=5", f"/game/{game}/?ply=5"),
            ("snapshot", f"/game/{game}/snapshot.json"), ("leaderboard", "/leaderboard/"),
            ("rules", f"/rules/{random.choice(RULES)}/")]


class Visitor(FastHttpUser):
    wait_time = constant(0)

    @task
    def page(self):
        if MODE == "plain":
            self.client.get(PLAIN, name="plain")
        else:
            name, path = random.choice(mix_pages())
            self.client.get(path, name=name)


def run(host, users, warmup, duration):
    """Locust as a library, headless: `users` visitors for `warmup` seconds (not counted:
    caches fill, connections open), then `duration` seconds measured. Returns the figures."""
    import time

    import gevent
    from locust.env import Environment

    environment = Environment(user_classes=[Visitor], host=host)
    runner = environment.create_local_runner()
    runner.start(users, spawn_rate=users)
    gevent.sleep(warmup)
    environment.stats.reset_all()
    start = time.monotonic()
    gevent.sleep(duration)
    elapsed = time.monotonic() - start
    figures = {name: summary(entry, elapsed)
               for (name, _), entry in environment.stats.entries.items()}
    total = summary(environment.stats.total, elapsed)
    runner.quit()
    return {**total, "pages": figures}


def summary(entry, elapsed):
    return {"requests": entry.num_requests, "failures": entry.num_failures,
            "rps": entry.num_requests / elapsed,
            "p50": entry.get_response_time_percentile(0.5) or 0,
            "p99": entry.get_response_time_percentile(0.99) or 0}


if __name__ == "__main__":
    # python bench/pages_locust.py HOST USERS WARMUP DURATION: the figures as JSON on stdout.
    import json
    import sys
    host, users, warmup, duration = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:5])
    print(json.dumps(run(host, users, warmup, duration)))
