"""Running the site in separate processes, for tests: a Daphne server on its own database,
manage.py commands against it. Used by the fixtures in conftest.py; test modules import what
they need from here (`from siteservers import SiteServer, server_env, ...`), never from
`conftest`, since several conftest.py files share that module name.
"""
import ctypes
import hashlib
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PR_SET_PDEATHSIG = 1


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(database_url, **extra):
    """Environment for a site process: its own database, the tests' secret key, DEBUG off,
    and Redis passed through when the run has one (the scale-out CI run)."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL", "REDIS_PREFIX", "DEBUG",
                                                    "BOT_JOBS", "JOBS_MODE"}}
    env.update(
        SECRET_KEY=os.environ["SECRET_KEY"],
        ALLOWED_HOSTS="127.0.0.1,localhost",
        DATABASE_URL=database_url,
        # site/ is a source root, not a package: see site/tessera/asgi.py.
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "site"), env.get("PYTHONPATH")])),
        PYTHONUNBUFFERED="1",
        # The live path's periodic work, quicker than in production so that tests of presence,
        # keep-alives and the sweeper wait seconds, not minutes.
        LIVE_HEARTBEAT="1", LIVE_KEEPALIVE="2", LIVE_SWEEP="0.5",
        # Every test client comes from 127.0.0.1: one address's snapshot budget (live.budget)
        # would be the whole suite's. tests/ws/test_snapshot_budget.py checks the budget.
        LIVE_SNAPSHOT_BURST="100000",
    )
    if os.environ.get("REDIS_URL"):
        env["REDIS_URL"] = os.environ["REDIS_URL"]
        # Group names ("game-1", "lobby") are only unique within one database: servers on
        # different databases (or other test runs on this Redis) must not hear each other.
        env["REDIS_PREFIX"] = "tessera-" + hashlib.sha1(database_url.encode()).hexdigest()[:12]
    env.update(extra)
    return env


def die_with_parent():
    """In the child before exec (Linux): a SIGTERM when the test process dies, so a killed or
    timed-out pytest run leaves no orphaned server behind on a shared machine."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except OSError:
        pass  # not Linux: stop() at the end of the session still applies


class SiteServer:
    """One Daphne process. `url`, `ws_url`, `env`; `manage(...)` runs manage.py with the same
    environment (same database), `create_user()` adds a player (`create_users()` several),
    `shell(code)` runs Python code inside Django and returns its stdout."""

    def __init__(self, env, port, log_path, root=ROOT):
        self.root = root  # the checkout whose code serves (a benchmark's --base: another one)
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        # Mail links (a password reset) are built from SITE_URL, never from the Host header:
        # each server's own address unless the test names another (a proxy in front).
        self.env = {"SITE_URL": self.url, **env}
        self.ws_url = f"ws://127.0.0.1:{port}"
        self.log_path = log_path
        self.process = None

    def manage(self, *args, check=True):
        result = subprocess.run(
            [sys.executable, "manage.py", *map(str, args)],
            cwd=self.root, env=self.env, capture_output=True, text=True, timeout=120,
        )
        if check and result.returncode != 0:
            raise RuntimeError(
                f"manage.py {' '.join(map(str, args))} failed ({result.returncode}):\n"
                f"{result.stdout}\n{result.stderr}"
            )
        return result

    def create_user(self, username, password, staff=False):
        args = ["adduser", username, "--password", password] + (["--staff"] if staff else [])
        self.manage(*args)
        return username

    def create_users(self, names, password):
        """Several players through the same adduser command, in one manage.py process (each
        process start takes seconds on a busy machine)."""
        self.shell("from django.core.management import call_command\n" + "".join(
            f"call_command('adduser', {name!r}, password={password!r})\n" for name in names))
        return list(names)

    def shell(self, code):
        return self.manage("shell", "-v", "0", "-c", code).stdout

    def start(self, timeout=90):
        log = open(self.log_path, "ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(self.port),
             "tessera.asgi:application"],
            cwd=self.root, env=self.env, stdout=log, stderr=subprocess.STDOUT,
            preexec_fn=die_with_parent,
        )
        log.close()
        self.wait_until_up(timeout)
        return self

    def wait_until_up(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"daphne exited with {self.process.returncode}:\n{self.log()}")
            try:
                with urllib.request.urlopen(self.url + "/", timeout=2) as response:
                    if response.status == 200:
                        return
            except urllib.error.HTTPError as error:
                # It answers, so it is up, but broken: waiting longer will not help.
                self.stop()
                raise RuntimeError(f"daphne answers {self.url}/ with {error.code}:\n{self.log()}")
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"daphne did not answer on {self.url} within {timeout}s:\n{self.log()}")

    def log(self):
        try:
            return Path(self.log_path).read_text(errors="replace")[-4000:]
        except OSError:
            return ""

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def kill(self):
        """SIGKILL: the process dies at once, saying goodbye to nobody."""
        self.process.kill()
        self.process.wait()


def migrate(env, root=ROOT):
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=root, env=env, check=True, timeout=300,
    )

