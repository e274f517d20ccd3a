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
import uuid
from contextlib import contextmanager
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
        if self.process:
            stop_process(self.process, timeout=10)

    def kill(self):
        """SIGKILL: the process dies at once, saying goodbye to nobody."""
        self.process.kill()
        self.process.wait()


# A jobs worker's heartbeat time-out, short so that a killed worker's job is redelivered in
# seconds (tests of killed workers, bench/failures.py).
WORKER_ENV = {"JOBS_LEASE": "2"}


def start_jobs_worker(env, log_path):
    """A `manage.py jobs_worker` process with `env` (a server's, and what the caller adds), its
    output appended to `log_path`; it dies with the caller."""
    return subprocess.Popen([sys.executable, "manage.py", "jobs_worker"], cwd=ROOT, env=env,
                            stdout=open(log_path, "ab"), stderr=subprocess.STDOUT,
                            preexec_fn=die_with_parent)


def stop_process(process, timeout=15):
    """SIGTERM, and SIGKILL if `process` has not ended within `timeout` seconds."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def migrate(env, root=ROOT):
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=root, env=env, check=True, timeout=300,
    )



def postgres_admin(database_url):
    """(the database's name, an autocommit connection to the server's `postgres` database)."""
    import dj_database_url
    import psycopg
    config = dj_database_url.parse(database_url)
    return config["NAME"], psycopg.connect(
        dbname="postgres", user=config["USER"] or None, password=config["PASSWORD"] or None,
        host=config["HOST"] or None, port=config["PORT"] or None, autocommit=True)


@contextmanager
def fresh_postgres_database(database_url, prefix):
    """A new database on `database_url`'s PostgreSQL server, dropped (connections and all)
    afterwards: (its URL, its name, an admin connection to the server)."""
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    _, admin = postgres_admin(database_url)
    admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield database_url.rsplit("/", 1)[0] + f"/{name}", name, admin
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


def database_away(database_url, seconds):
    """The PostgreSQL database out of reach for `seconds`, as while PostgreSQL restarts: every
    backend of it terminated and new connections refused, then allowed again. Returns how
    many backends were terminated."""
    name, admin = postgres_admin(database_url)
    killed = 0
    try:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')
        until = time.monotonic() + seconds
        while True:
            killed += len(admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid()", [name]).fetchall())
            if time.monotonic() >= until:
                break
            time.sleep(0.2)
    finally:
        admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        admin.close()
    return killed
