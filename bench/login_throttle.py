"""Password guessing against a real Daphne server: how many guesses get a password check, and
what the guessers do to another visitor's page time.

    python bench/login_throttle.py [--guesses 300] [--guessers 8] [--pages 60]

Starts Daphne on a fresh SQLite database (the site's real password hasher, DEBUG off), creates
a player, then:
1. quiet: another visitor loads the home page `--pages` times;
2. attack: `--guessers` threads post `--guesses` wrong passwords in all at the player's account
   (name in varying case, like a guesser would) while the visitor keeps loading the home page.
Prints how the guesses were answered (a wrong-password page means the password was checked;
429 means refused unchecked), the server's CPU time for the attack, and the visitor's median
and 95th-percentile page times. Guessers are separate processes, so that their Python does not
hold up the visitor's (the machine's cores are still shared: compare runs on one machine).
"""
import argparse
import http.cookiejar
import multiprocessing
import os
import re
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.environ.setdefault(
    "SECRET_KEY", "login-benchmark-only-key-never-used-by-any-real-site-0123456789")

from siteservers import SiteServer, free_port, migrate, server_env  # noqa: E402

PASSWORD = "a-long-pass-phrase-42"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--guesses", type=int, default=300)
    parser.add_argument("--guessers", type=int, default=8)
    parser.add_argument("--pages", type=int, default=60, help="home page loads while quiet")
    return parser.parse_args()


class Guesser:
    """One browser-like client: a cookie jar and the log-in form's CSRF token."""

    def __init__(self, base):
        self.base = base
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        page = self.opener.open(base + "/accounts/login/", timeout=60).read().decode()
        self.token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]

    def guess(self, name, password):
        """The answer's status: 200 (wrong password page), 302 (logged in), 429 (refused)."""
        data = urllib.parse.urlencode({"username": name, "password": password,
                                       "csrfmiddlewaretoken": self.token}).encode()
        request = urllib.request.Request(self.base + "/accounts/login/", data=data,
                                         headers={"Referer": self.base + "/accounts/login/"})
        try:
            with self.opener.open(request, timeout=120) as response:
                return response.status
        except urllib.error.HTTPError as error:
            return error.code


def page_time(url):
    start = time.perf_counter()
    with urllib.request.urlopen(url, timeout=120) as response:
        response.read()
    return (time.perf_counter() - start) * 1000


def summary(times):
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"median {statistics.median(ordered):7.1f} ms   p95 {p95:7.1f} ms   ({len(times)} loads)"


def main():
    args = parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = server_env(f"sqlite:///{tmp}/db.sqlite3")
        migrate(env)
        server = SiteServer(env, free_port(), Path(tmp, "daphne.log")).start()
        try:
            server.create_user("victim", PASSWORD)
            run(server.url, args, server.process.pid)
        finally:
            server.stop()


def cpu_seconds(pid):
    """User + system CPU time of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def guess_share(base, numbers):
    """One guesser process: its share of the guesses, in turn; returns the answers' statuses."""
    guesser = Guesser(base)
    return [guesser.guess(["victim", "Victim", "VICTIM"][i % 3], f"guess-{i}") for i in numbers]


def run(base, args, pid):
    home = base + "/"
    page_time(home)
    quiet = [page_time(home) for _ in range(args.pages)]

    busy = []
    done = threading.Event()

    def visit():
        while not done.is_set():
            busy.append(page_time(home))

    shares = [list(range(i, args.guesses, args.guessers)) for i in range(args.guessers)]
    visitor = threading.Thread(target=visit)
    cpu_before = cpu_seconds(pid)
    start = time.perf_counter()
    visitor.start()
    with multiprocessing.Pool(args.guessers) as pool:
        answers = [status for part in pool.starmap(guess_share, [(base, s) for s in shares])
                   for status in part]
    elapsed = time.perf_counter() - start
    done.set()
    visitor.join()
    cpu = cpu_seconds(pid) - cpu_before

    checked = answers.count(200)
    refused = answers.count(429)
    print(f"{args.guesses} wrong passwords from {args.guessers} parallel guessers in {elapsed:.1f} s;"
          f" server CPU {cpu:.1f} s (visitor's loads included)")
    print(f"  answered as a wrong password (password checked): {checked}")
    print(f"  refused with 429 (throttled; the first of these was still checked): {refused}")
    other = len(answers) - checked - refused
    if other:
        print(f"  other answers: {other} {sorted(set(answers))}")
    print(f"another visitor's home page, quiet:          {summary(quiet)}")
    print(f"another visitor's home page, while guessing: {summary(busy)}")


if __name__ == "__main__":
    main()
