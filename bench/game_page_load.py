"""How long a game page takes to draw its board on a slow phone connection.

    python bench/game_page_load.py                   # 150 ms round trip, 1.6 Mbit/s, 5 runs
    python bench/game_page_load.py --runs 9 --rtt 300 --mbit 0.8
    python bench/game_page_load.py --root /path/to/other/checkout   # the same for another tree
    python bench/game_page_load.py --https           # over HTTPS, as a deployed site is served

It starts a Daphne server of the checkout (DEBUG off, a scratch SQLite file, as the tests
do), makes a game of each kind a few moves in, and loads each game page in headless Chromium
(/usr/bin/chromium, through Playwright) with Chromium's network emulation
(Network.emulateNetworkConditions: the round trip as latency, the same throughput down and
up), each run in a new browser context, so nothing is cached. For every page it prints the
median and the spread of:

  picture   the board is on the page: the first SVG inside #board-frame has cells, drawn by
            the server (in the HTML) or by the script, whichever comes first
  live      the live board is drawn by static/js/game.js (#board has cells or tokens)
  requests  how many requests the page made until then, and how many of them were modules

  protocol  how the page came (performance's nextHopProtocol): http/1.1, or h2 with --https

With --https the same Daphne serves the pages over TLS (a self-signed certificate, Chromium told
to accept it); with the h2 package installed (Twisted's http2 extra, in requirements.txt)
Twisted offers HTTP/2 by ALPN, as any proxy in front of a deployed site does. Over HTTP/1.1 a
browser opens at most six connections to a host, so the page's ~35 requests wait for each
other in waves of six, one round trip each; over HTTP/2 they share one connection.

Times are from the start of the navigation (performance.timeOrigin). It prints figures; it is
not a test.
"""
import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

DEFAULT_ROOT = Path(__file__).resolve().parents[1]
WATCH_SCRIPT = """
(() => {
  const mark = (name) => { if (!(name in window.__drawn)) window.__drawn[name] = performance.now(); };
  window.__drawn = {};
  const check = () => {
    if (document.querySelector("#board-frame svg [data-cell], #board-frame svg .cell")) mark("picture");
    if (document.querySelector("#board [data-cell], #board .cell")) mark("live");
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true });
})();
"""
GAMES = [("hadron", {"size": 5}), ("copolymer", {"size": 5}), ("colorful", {"size": 5}),
         ("tripen", {"size": 13})]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rtt", type=float, default=150, help="round trip, ms")
    parser.add_argument("--mbit", type=float, default=1.6, help="throughput, Mbit/s")
    parser.add_argument("--root", type=Path, default=DEFAULT_ROOT,
                        help="the checkout to serve (default: this one)")
    parser.add_argument("--https", action="store_true",
                        help="serve over TLS (HTTP/2 where Twisted's http2 extra is installed)")
    return parser.parse_args()


def start_server(root, https=False):
    sys.path[:0] = [str(DEFAULT_ROOT / "tests")]
    from siteservers import SiteServer, free_port, migrate, server_env
    import siteservers
    siteservers.ROOT = root   # manage.py and the site of the checkout measured
    scratch = Path(tempfile.mkdtemp(prefix="tessera-pageload-"))
    os.environ.setdefault("SECRET_KEY", "page-load-benchmark-only-key-never-used-by-any-real-site-0123456789")
    env = server_env(f"sqlite:///{scratch / 'db.sqlite3'}")
    env["PYTHONPATH"] = os.pathsep.join([str(root / "site"), str(root)])
    migrate_in(root, env)
    server = SiteServer(env, free_port(), scratch / "daphne.log")
    if https:
        serve_tls(server, scratch)
    server.start()
    return server


def serve_tls(server, scratch):
    """Daphne on a TLS endpoint instead of plain HTTP; wait_until_up's check trusts the
    certificate."""
    import ssl
    import subprocess
    import urllib.request
    from siteservers import ROOT, die_with_parent
    from tlsproxy import self_signed

    key, cert = self_signed(scratch)
    server.url = f"https://127.0.0.1:{server.port}"
    context = ssl.create_default_context(cafile=str(cert))
    urllib.request.install_opener(urllib.request.build_opener(
        urllib.request.HTTPSHandler(context=context)))

    def start(timeout=90):
        with open(server.log_path, "ab") as log:
            server.process = subprocess.Popen(
                [sys.executable, "-m", "daphne", "-e",
                 f"ssl:{server.port}:interface=127.0.0.1:privateKey={key}:certKey={cert}",
                 "tessera.asgi:application"],
                cwd=ROOT, env=server.env, stdout=log, stderr=subprocess.STDOUT,
                preexec_fn=die_with_parent)
        server.wait_until_up(timeout)
        return server
    server.start = start


def migrate_in(root, env):
    import subprocess
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=root,
                   env=env, check=True, timeout=300)


def make_games(server, root):
    import subprocess
    code = f"""
import random
from django.contrib.auth import get_user_model
from play import services
from play.clock import TimeControl
User = get_user_model()
a = User.objects.create_user("benchalice"); b = User.objects.create_user("benchbob")
for name, options in {GAMES!r}:
    game = services.start_game(game=name, options=options, players=(a, b),
                               time_control=TimeControl.realtime(5, 3))
    rng = random.Random(1)
    for _ in range(12):
        game = services.load(game.pk)
        state = game.state()
        mover = game.players()[game.player_of(state.to_move)]
        services.play(game.pk, mover, state.ply,
                      rng.choice([x for x in state.legal_actions() if x != "swap"]))
    print(name, game.pk)
"""
    out = subprocess.run([sys.executable, "manage.py", "shell", "-v", "0", "-c", code], cwd=root,
                         env=server.env, capture_output=True, text=True, check=True).stdout
    return [(line.split()[0], int(line.split()[1])) for line in out.strip().splitlines()]


def measure(browser, url, rtt, mbit):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True,
                                  has_touch=True)
    page = context.new_page()
    requests = []
    page.on("request", lambda request: requests.append(request))
    page.add_init_script(WATCH_SCRIPT)
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", {
        "offline": False, "latency": rtt,
        "downloadThroughput": mbit * 1e6 / 8, "uploadThroughput": mbit * 1e6 / 8})
    page.goto(url, wait_until="commit")
    # A function, not an expression: the site's Content-Security-Policy forbids eval().
    page.wait_for_function("() => window.__drawn && 'live' in window.__drawn", timeout=60_000)
    drawn = page.evaluate("window.__drawn")
    protocol = page.evaluate("() => performance.getEntriesByType('navigation')[0].nextHopProtocol")
    scripts = [r for r in requests if r.resource_type == "script"]
    context.close()
    return (drawn.get("picture", drawn["live"]), drawn["live"], len(requests), len(scripts),
            protocol)


def main():
    args = parse_args()
    from playwright.sync_api import sync_playwright
    server = start_server(args.root.resolve(), https=args.https)
    try:
        made = make_games(server, args.root.resolve())
        print(f"{args.root.resolve()}: {args.rtt:g} ms round trip, {args.mbit:g} Mbit/s, "
              f"{args.runs} cold loads each (median, min-max)")
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path="/usr/bin/chromium", headless=True,
                args=["--no-sandbox"] + (["--ignore-certificate-errors"] if args.https else []))
            for name, pk in made:
                runs = [measure(browser, f"{server.url}/game/{pk}/", args.rtt, args.mbit)
                        for _ in range(args.runs)]
                picture, live = [r[0] for r in runs], [r[1] for r in runs]
                print(f"  {name:10} picture {statistics.median(picture):6.0f} ms "
                      f"({min(picture):.0f}-{max(picture):.0f})   live {statistics.median(live):6.0f} ms "
                      f"({min(live):.0f}-{max(live):.0f})   requests {runs[-1][2]}, "
                      f"scripts {runs[-1][3]}, {runs[-1][4]}")
            browser.close()
    finally:
        server.stop()


if __name__ == "__main__":
    main()
