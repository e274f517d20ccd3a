"""Pages under load: a mix of the site's pages against a plain Django view of the same size, on
one Daphne process, driven by Locust (40 visitors with no think time, headless).

    python bench/pages_load.py                          # this checkout, 43 finished games
    python bench/pages_load.py --archived 100000        # and 100,000 archived games beside them
    python bench/pages_load.py --playing 2000           # and 2,000 more games in progress
    python bench/pages_load.py --site /tmp/old --site .  # two checkouts, one after the other
    python bench/pages_load.py --gzip                   # pages served alone asked for with gzip
    python bench/pages_load.py --prime                  # every page of the mix drawn once first
    python bench/pages_load.py --smoke                  # a tiny shape (tests/bench)

For each checkout (--site, default this one) it makes a scratch SQLite site (migrate, then
bench/pages_setup.py with that checkout's code: 43 finished games played through play's
services, 25 games in progress for Watch, optionally --archived rows), starts Daphne on it with
DEBUG off and bench/pages_settings.py (the site's settings plus the plain view, which the
site's own URLs never serve), pinned with taskset to the first allowed core, and runs Locust on
the other. First each page alone (sequential requests, after a warm-up: the median in ms), then
the mix, then the plain view at the mix's mean page size (each --warmup seconds not counted,
then --duration seconds measured). It prints req/s, p50 and p99 of both and the ratio, per checkout, and the server's CPU time
per request (from /proc), steadier than the clock on a shared machine, and the ratio by CPU
(the plain view's CPU per request over the mix's).
It prints figures; it is not a test.
"""
import argparse
import gzip as gzip_module
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from live_load import die_with_parent, free_port  # noqa: E402

SECRET_KEY = "pages-load-bench-only-key-never-used-by-any-real-site-0123456789abcdef"
ALONE = [("home", "/"), ("watch", "/watch/"), ("archive", "/archive/"),
         ("game", "/game/{game}/"), ("game?ply=5", "/game/{game}/?ply=5"),
         ("snapshot", "/game/{game}/snapshot.json"), ("leaderboard", "/leaderboard/"),
         ("rules", "/rules/hadron/")]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, action="append",
                        help="checkout to serve (repeatable; default: this one)")
    parser.add_argument("--finished", type=int, default=43)
    parser.add_argument("--live", type=int, default=25)
    parser.add_argument("--archived", type=int, default=0)
    parser.add_argument("--playing", type=int, default=0,
                        help="more games in progress, as rows only (Watch on a big site)")
    parser.add_argument("--users", type=int, default=40, help="concurrent visitors")
    parser.add_argument("--duration", type=float, default=20, help="seconds measured per load")
    parser.add_argument("--warmup", type=float, default=3, help="seconds of load not counted")
    parser.add_argument("--alone", type=int, default=30, help="requests per page served alone")
    parser.add_argument("--gzip", action="store_true",
                        help="pages served alone asked for with gzip, as browsers and Locust do")
    parser.add_argument("--prime", action="store_true",
                        help="before the mix, ask once for every address it may ask for (each "
                             "game's pages, each rules page), so its figures are of pages "
                             "drawn before, not of a fresh process's first drawings; the "
                             "slowest first drawings are printed")
    parser.add_argument("--smoke", action="store_true", help="a tiny shape, for tests/bench")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if args.smoke:
        args.finished, args.live, args.archived = 3, 2, 0
        args.users, args.duration, args.warmup, args.alone = 4, 2, 1, 3
    args.site = [path.resolve() for path in (args.site or [ROOT])]
    return args


def cores():
    """(server core, load core): the first two allowed cores, or (None, None) on one core."""
    allowed = sorted(os.sched_getaffinity(0))
    return (allowed[0], allowed[1]) if len(allowed) >= 2 else (None, None)


def pinned(argv, core):
    if core is not None and shutil.which("taskset"):
        return ["taskset", "-c", str(core)] + argv
    return argv


class Site:
    """One checkout's scratch site and its Daphne server."""

    def __init__(self, checkout, scratch, args):
        self.checkout, self.scratch, self.args = checkout, scratch, args
        self.env = {k: v for k, v in os.environ.items()
                    if k not in {"DATABASE_URL", "REDIS_URL", "REDIS_PREFIX", "DEBUG",
                                 "DJANGO_SETTINGS_MODULE"}}
        self.env.update(
            SECRET_KEY=SECRET_KEY, ALLOWED_HOSTS="127.0.0.1", PYTHONUNBUFFERED="1",
            DATABASE_URL=f"sqlite:///{scratch / 'site.sqlite3'}",
            DJANGO_SETTINGS_MODULE="pages_settings",
            PYTHONPATH=os.pathsep.join([str(HERE), str(checkout / "site"), str(checkout)]))
        self.process = None

    def prepare(self):
        run = dict(cwd=self.checkout, env=self.env, check=True, timeout=1800)
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], **run)
        plan, result = self.scratch / "plan.json", self.scratch / "games.json"
        plan.write_text(json.dumps({"finished": self.args.finished, "live": self.args.live,
                                    "archived": self.args.archived,
                                    "playing": self.args.playing}))
        subprocess.run([sys.executable, str(HERE / "pages_setup.py"), str(plan), str(result)], **run)
        self.games = json.loads(result.read_text())

    def start(self, core):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        argv = pinned([sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port),
                       "tessera.asgi:application"], core)
        self.log_path = self.scratch / "daphne.log"
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(argv, cwd=self.checkout, env=self.env, stdout=log,
                                            stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited:\n{self.log_path.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=2):
                    return
            except (urllib.error.URLError, OSError):
                time.sleep(0.2)
        raise RuntimeError(f"daphne did not answer:\n{self.log_path.read_text()[-3000:]}")

    def cpu_seconds(self):
        """The server's CPU time so far (utime + stime, /proc/<pid>/stat fields 14 and 15):
        on a shared machine a steadier figure than the wall clock's."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                # Daphne waits for open connections; the figures are taken already.
                self.process.kill()
                self.process.wait(10)


def get(url, gzip=False):
    # Asked for gzip (--gzip), the page's size is still its own: the figures print it unpacked.
    headers = {"Accept-Encoding": "gzip"} if gzip else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as answer:
        body = answer.read()
        return gzip_module.decompress(body) if answer.headers.get("Content-Encoding") == "gzip" else body


def alone(site, repeat, gzip=False):
    """Each page asked for one at a time, after a warm-up: {name: (median ms, bytes, server
    CPU ms per request)}. gzip: asked for as browsers (and the mix's Locust) ask."""
    game = site.games["finished"][0]
    figures = {}
    for name, path in ALONE:
        url = site.url + path.format(game=game)
        body = get(url, gzip)
        for _ in range(2):
            get(url, gzip)
        times = []
        cpu = site.cpu_seconds()
        for _ in range(repeat):
            start = time.perf_counter()
            get(url, gzip)
            times.append((time.perf_counter() - start) * 1000)
        cpu_ms = (site.cpu_seconds() - cpu) * 1000 / repeat
        figures[name] = (statistics.median(times), len(body), cpu_ms)
    return figures


RULES = ["hadron", "copolymer", "colorful", "tripen"]  # as bench/pages_locust.py's


def primed(site):
    """Every address of the mix (bench/pages_locust.py) asked for once, one at a time, with
    gzip as Locust asks: [(ms, path)] of the slowest, each a page's first drawing in this
    process (a rules page's diagrams, a finished game's page and position), which under forty
    visitors at once take forty times as long and make the mix's p99 in a short run."""
    paths = ["/", "/watch/", "/archive/", "/leaderboard/",
             *(f"/rules/{name}/" for name in RULES),
             *(f"/game/{game}/{tail}" for game in site.games["finished"]
               for tail in ("", "?ply=5", "snapshot.json"))]
    times = []
    for path in paths:
        start = time.perf_counter()
        get(site.url + path, gzip=True)
        times.append(((time.perf_counter() - start) * 1000, path))
    return sorted(times, reverse=True)[:3]


def loaded(site, mode, plain_bytes, core, args):
    figures, cpu = locust_run(site, mode, plain_bytes, core, args)
    return {**figures, "cpu_ms": cpu * 1000 / max(1, figures["requests"])}


def locust_run(site, mode, plain_bytes, core, args):
    """The visitors (bench/pages_locust.py: Locust as a library, headless) on `core`: a
    warm-up of --warmup seconds, not counted, then --duration seconds measured."""
    env = {**os.environ, "PAGES_MODE": mode, "PAGES_PLAIN_BYTES": str(plain_bytes),
           "PAGES_GAMES": ",".join(map(str, site.games["finished"]))}
    argv = pinned([sys.executable, str(HERE / "pages_locust.py"), site.url, str(args.users),
                   str(args.warmup), str(args.duration)], core)
    process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, preexec_fn=die_with_parent)
    # The server's CPU over the measured stretch (the visitors count their own from the end
    # of the warm-up; the bench's clock is close enough for a per-request average).
    time.sleep(args.warmup)
    cpu = site.cpu_seconds()
    time.sleep(args.duration)
    cpu = site.cpu_seconds() - cpu
    stdout, stderr = process.communicate(timeout=120)
    finished = subprocess.CompletedProcess(argv, process.returncode, stdout, stderr)
    if finished.returncode != 0:
        raise RuntimeError(f"locust failed:\n{finished.stdout[-2000:]}{finished.stderr[-3000:]}")
    figures = json.loads(finished.stdout.strip().splitlines()[-1])
    if figures["requests"] == 0:
        raise RuntimeError(f"locust carried nothing:\n{finished.stderr[-3000:]}")
    return figures, cpu


def measure(checkout, args, server_core, load_core):
    with tempfile.TemporaryDirectory(prefix="tessera-pages-") as folder:
        site = Site(checkout, Path(folder), args)
        site.prepare()
        try:
            site.start(server_core)
            pages = alone(site, args.alone, args.gzip)
            size = round(statistics.mean(size for _, size, _ in pages.values()))
            first = primed(site) if args.prime else None
            mix = loaded(site, "mix", size, load_core, args)
            plain = loaded(site, "plain", size, load_core, args)
        finally:
            site.stop()
    return {"site": str(checkout), "alone": pages, "mean_bytes": size, "mix": mix, "plain": plain,
            "first_drawn": first}


def main():
    args = parse_args()
    server_core, load_core = cores()
    os.environ.pop("DJANGO_SETTINGS_MODULE", None)
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; server on core {server_core}, "
          f"load on core {load_core}; {args.finished} finished games, {args.live} in progress, "
          f"{args.archived} archived, {args.playing} more in progress; {args.users} visitors, {args.duration:g} s measured")
    results = [measure(checkout, args, server_core, load_core) for checkout in args.site]

    names = [name for name, _ in ALONE]
    print("\nserved alone, median ms (page bytes)")
    print(f"{'site':40} " + " ".join(f"{name:>12}" for name in names))
    for result in results:
        print(f"{result['site'][-40:]:40} "
              + " ".join(f"{result['alone'][n][0]:12.1f}" for n in names))
    print(f"{'bytes':40} " + " ".join(f"{results[-1]['alone'][n][1]:12d}" for n in names))
    print("\nserved alone, server CPU ms per request")
    for result in results:
        print(f"{result['site'][-40:]:40} "
              + " ".join(f"{result['alone'][n][2]:12.1f}" for n in names))

    print(f"\n{args.users} visitors, no think time")
    print(f"{'site':40} {'load':>6} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'fail':>6} "
          f"{'CPU ms/req':>11} {'mix/plain':>10} {'by CPU':>7}")
    for result in results:
        for load in ("mix", "plain"):
            figures = result[load]
            # mix/plain: the req/s ratio; by CPU: the plain view's CPU per request over the
            # mix's (what one core would carry of each, whatever else the machine runs).
            ratio = (f"{result['mix']['rps'] / result['plain']['rps']:10.3f} "
                     f"{result['plain']['cpu_ms'] / result['mix']['cpu_ms']:7.3f}"
                     if load == "mix" else "")
            print(f"{result['site'][-40:]:40} {load:>6} {figures['rps']:8.1f} {figures['p50']:8.0f} "
                  f"{figures['p99']:8.0f} {figures['failures']:6d} {figures['cpu_ms']:11.2f} {ratio}")
    print("\nthe mix's pages under load, p99 ms")
    pages_shown = sorted(results[0]["mix"]["pages"])
    print(f"{'site':40} " + " ".join(f"{name:>12}" for name in pages_shown))
    for result in results:
        print(f"{result['site'][-40:]:40} " + " ".join(
            f"{result['mix']['pages'].get(name, {}).get('p99', 0):12.0f}" for name in pages_shown))
    if args.prime:
        print("\nfirst drawings before the mix (--prime), slowest, ms")
        for result in results:
            print(f"{result['site'][-40:]:40} "
                  + "  ".join(f"{path} {ms:.0f}" for ms, path in result["first_drawn"]))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
