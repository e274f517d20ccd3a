"""Django settings for Tessera.

Everything that differs between one laptop and a deployment comes from the environment:

* SECRET_KEY      required unless DEBUG is on (then a fixed development key is used), and as
                  strong as `check --deploy` asks: 50+ characters, 5+ different ones
* DEBUG           "1"/"true"/"yes"/"on" turns it on; off by default
* ALLOWED_HOSTS   comma-separated host names
* CSRF_TRUSTED_ORIGINS  comma-separated origins, e.g. https://tessera.example (behind a proxy)
* SECURE_PROXY_SSL_HEADER  header a TLS proxy sets to "https", e.g. X-Forwarded-Proto
* SECURE_SSL_REDIRECT, SECURE_HSTS_SECONDS, SECURE_HSTS_INCLUDE_SUBDOMAINS, SECURE_HSTS_PRELOAD,
  SESSION_COOKIE_SECURE, CSRF_COOKIE_SECURE   Django's settings of those names (flags: "1")
* DATABASE_URL    e.g. postgres://user:pass@host:5432/tessera; default: SQLite file db.sqlite3
* REDIS_URL       e.g. redis://127.0.0.1:6379/0; unset: in-memory channel layer (one process)
* REDIS_PREFIX    prefix of the channel layer's Redis keys (default "asgi"): sites, or test
                  servers, with separate databases that share one Redis need different ones
* LOGIN_FAILURE_LIMIT, LOGIN_COOLOFF_MINUTES  log-in throttle (see AXES_* below); 5 and 15
* TRUSTED_PROXY_COUNT  reverse proxies in front of Daphne that append to X-Forwarded-For
* STATIC_ROOT     where `collectstatic` puts files; optional (whitenoise serves from static/)
* EMAIL_URL       e.g. smtp://user:password@smtp.example:587/?tls=True, or console: / memory: / file:;
                  or EMAIL_HOST (+ EMAIL_PORT, EMAIL_HOST_USER, EMAIL_HOST_PASSWORD,
                  EMAIL_USE_TLS, EMAIL_USE_SSL) for SMTP; neither: mail is printed (console)
* DEFAULT_FROM_EMAIL  the sender of the site's mail
* SITE_URL        the site's address in the links of every mail (password resets included)
* LOG_LEVEL, LOG_FORMAT  WARNING by default; LOG_FORMAT=json: one JSON object per line
* READY_DRAIN_SECONDS  seconds of serving after SIGTERM with /readyz saying 503 (default 0)
* DRAIN_SPREAD_SECONDS  seconds over which a stopping process then closes its sockets (default 0)
* METRICS_TOKEN, METRICS_ALLOWED_ADDRESSES, PROMETHEUS_MULTIPROC_DIR  who may read /metrics,
                  and where several processes keep their figures (docs/operations.md)
"""
import ipaddress
import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
import dj_email_url
from csp.constants import NONE, SELF
from django.core.checks.security.base import (
    SECRET_KEY_INSECURE_PREFIX,
    SECRET_KEY_MIN_LENGTH,
    SECRET_KEY_MIN_UNIQUE_CHARACTERS,
)
from django.core.exceptions import ImproperlyConfigured

from ops.logs import settings_logging

# Repository root: site/tessera/settings.py -> parents[2].
BASE_DIR = Path(__file__).resolve().parents[2]


def env_flag(name, default=False):
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name):
    return [item.strip() for item in os.environ.get(name, "").split(",") if item.strip()]


def env_int(name, default=0, minimum=0):
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        number = int(value)
    except ValueError:
        number = minimum - 1
    if number < minimum:
        raise ImproperlyConfigured(
            f"{name} must be a whole number of {minimum} or more, not {value!r}.")
    return number


def env_proxy_ssl_header(name):
    """SECURE_PROXY_SSL_HEADER from a header name ("X-Forwarded-Proto") that a TLS proxy sets
    to "https"; "Name: value" names another value. Django wants the request.META key."""
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    header, _, wanted = value.partition(":")
    header, wanted = header.strip(), wanted.strip() or "https"
    if not header or any(c.isspace() for c in header):
        raise ImproperlyConfigured(
            f"{name} must be a header name such as X-Forwarded-Proto, not {value!r}.")
    return ("HTTP_" + header.upper().replace("-", "_"), wanted)


def secret_key_weakness(key):
    """Why `key` is too weak for a site on the internet, in words, or None. The criteria are
    the ones `manage.py check --deploy` applies (security.W009)."""
    if len(key) < SECRET_KEY_MIN_LENGTH:
        return f"it is {len(key)} characters long"
    unique = len(set(key))
    if unique < SECRET_KEY_MIN_UNIQUE_CHARACTERS:
        return f"it uses only {unique} different character{'s' if unique != 1 else ''}"
    if key.startswith(SECRET_KEY_INSECURE_PREFIX):
        return f"it starts with {SECRET_KEY_INSECURE_PREFIX!r}, Django's mark of a throw-away key"
    return None


SECRET_KEY_ADVICE = (
    f"Use at least {SECRET_KEY_MIN_LENGTH} characters, {SECRET_KEY_MIN_UNIQUE_CHARACTERS} of them "
    "different, e.g. the output of: python -c \"from django.core.management.utils import "
    "get_random_secret_key; print(get_random_secret_key())\". Or set DEBUG=1 for local development."
)

DEBUG = env_flag("DEBUG")

SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not DEBUG:
    # A guessable key in production would let anyone forge sessions: refuse to start.
    if not SECRET_KEY.strip():
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. Set the SECRET_KEY environment variable. " + SECRET_KEY_ADVICE
        )
    if weakness := secret_key_weakness(SECRET_KEY):
        raise ImproperlyConfigured(f"SECRET_KEY is too weak: {weakness}. " + SECRET_KEY_ADVICE)
elif not SECRET_KEY.strip():
    SECRET_KEY = "django-insecure-tessera-development-key-do-not-use-in-production"

# With DEBUG on and this list empty, Django still accepts localhost, 127.0.0.1 and [::1].
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

# HTTPS, read from the environment so that a deployment passes `manage.py check --deploy`
# (README: "In production"). Behind a TLS proxy, Daphne sees plain HTTP: the proxy's header
# says the browser used HTTPS. Trust it only when every request comes through that proxy,
# which overwrites whatever the client sent in that header.
SECURE_PROXY_SSL_HEADER = env_proxy_ssl_header("SECURE_PROXY_SSL_HEADER")
SECURE_SSL_REDIRECT = env_flag("SECURE_SSL_REDIRECT")
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS")
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_flag("SECURE_HSTS_INCLUDE_SUBDOMAINS")
SECURE_HSTS_PRELOAD = env_flag("SECURE_HSTS_PRELOAD")
SESSION_COOKIE_SECURE = env_flag("SESSION_COOKIE_SECURE")
CSRF_COOKIE_SECURE = env_flag("CSRF_COOKIE_SECURE")

INSTALLED_APPS = [
    # First, so that `manage.py runserver` is Daphne's ASGI runserver (websockets included).
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # Before staticfiles: whitenoise's runserver serves static files the same way as production.
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "live",
    # The job runner: worker processes, the queue at scale (docs/operations.md, "Jobs").
    "jobs",
    "csp",
    # Counts failed log-ins and locks out guessers (accounts.throttle).
    "axes",
    "accounts",
    "rules",
    "boards",
    "play",
    "lobby",
    "watch",
    "archive",
    "ratings",
    "notifications",
    "dashboard",
    "talk",
    "analysis",
    # The opening explorer: counts kept as games end (play.endings), served per line.
    "explorer",
    "frontend",
    # Computer players: their accounts, levels and moves (jobs of the jobs app).
    "bots",
    # Lessons and puzzles (games.lessons, games.puzzles).
    "learn",
    # Arenas, Swiss events and round robins above play (docs/tournaments.md).
    "tournaments",
    # Health, readiness, metrics, log context, backups (docs/operations.md).
    "ops",
    # Personal API tokens, bot accounts and /api/v1/ (docs/api.md); ninja for its docs page
    # with Swagger UI from our own static files (the CDN copy would break the CSP).
    "ninja",
    "api",
]

MIDDLEWARE = [
    # First: what a view queues for the channel layer leaves once the view has returned.
    "live.outbox.OutboxMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Outside whitenoise, so the static files it serves (straight from static/, without
    # collectstatic's compressed copies) are compressed too: 200 KB of modules and style
    # sheets are 70 KB, a game page's snapshot a tenth of itself. Django's gzip pads each
    # response with random bytes against BREACH ("Heal the Breach"), and CSRF tokens are masked
    # per response.
    "django.middleware.gzip.GZipMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # After whitenoise: static files need no policy, pages do.
    "tessera.security.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    # /api/ answers JSON only, and refuses big bodies before reading them (docs/api.md).
    "api.middleware.ApiJsonErrorsMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Errors by status for /metrics, the user and game for log lines.
    "ops.middleware.OpsMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: turns a locked-out log-in into accounts.throttle's answer.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "tessera.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context_processors.account_prefs",
            ],
        },
    },
]

WSGI_APPLICATION = None
ASGI_APPLICATION = "tessera.asgi.application"

DATABASES = {
    "default": dj_database_url.config(
        default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        # Persistent connections: the live path's database threads (live.lanes) and Django's
        # one thread for sync views keep theirs, instead of a new server backend per call.
        # Recycled after this many seconds, and closed at once after an error.
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "300")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The embedded default serves many writers (several server threads, and processes in the
    # tests): WAL lets readers run beside the one writer, IMMEDIATE transactions take the
    # write lock when they begin (so a transaction never fails to upgrade a read lock with
    # "database is locked"), and a writer waits up to `timeout` seconds for its turn.
    DATABASES["default"].setdefault("OPTIONS", {}).update({
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    })

elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # Parameters bound by the server, not quoted into the text by psycopg: the statements
    # the live path repeats (live.sql, play.statements) are then prepared once per connection
    # (psycopg prepares a statement on its fifth run), so PostgreSQL stops parsing and
    # planning them for every move. Django turns psycopg's preparing off unless told
    # (prepare_threshold None, for poolers in transaction mode, which the site does not sit
    # behind): without the threshold here nothing was prepared, and a move's transaction cost
    # PostgreSQL 0.9 ms of CPU instead of 0.5, the server's thread 0.96 ms instead of 0.82
    # (docs/measurements.md, pgsat).
    DATABASES["default"].setdefault("OPTIONS", {})["server_side_binding"] = True
    DATABASES["default"]["OPTIONS"].setdefault("prepare_threshold", 5)

REDIS_URL = os.environ.get("REDIS_URL", "")
if REDIS_URL:
    # Several Daphne processes share groups (a game's players and spectators) through Redis.
    CHANNEL_LAYERS = {
        "default": {
            # live.layers.RedisNewsLayer: one PUBLISH per group send (docs/design.md);
            # REDIS_LAYER=channels_redis.core.RedisChannelLayer gives channels-redis's default.
            "BACKEND": os.environ.get("REDIS_LAYER") or "live.layers.RedisNewsLayer",
            # No socket timeout: channels-redis blocks up to 5 s reading a channel, and redis-py
            # 8 times out idle reads after 5 s by default, which closed quiet sockets (1011).
            # Named connections: CLIENT LIST tells the site's from others on a shared Redis.
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": None,
                                  "client_name": os.environ.get("REDIS_PREFIX") or "asgi"}],
                       "prefix": os.environ.get("REDIS_PREFIX") or "asgi",
                       # channels-redis's default layer: all sockets of a process share one
                       # Redis list, room for bursts of news to thousands of them.
                       "capacity": 5000},
        }
    }
else:
    # One process: groups live in memory (Channels' in-memory layer, made to scale with the
    # number of sockets, live.layers).
    CHANNEL_LAYERS = {"default": {"BACKEND": "live.layers.LocalChannelLayer"}}

# Django's cache (drawings, replayed positions): per process. The export limits count per
# client address across the site's processes, so with Redis they count there
# (django-ratelimit, archive.views); one process counts in its own memory.
CACHES = {
    # The pages keep drawn rows here (Watch, Archive, a game's no-script board): Django's
    # default of 300 entries held the rows of about a dozen pages; 5,000 hold a few hundred
    # pages' worth in tens of MB per process.
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                "OPTIONS": {"MAX_ENTRIES": 5000}},
    "limits": ({"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL,
                "KEY_PREFIX": os.environ.get("REDIS_PREFIX") or "asgi"}
               if REDIS_URL else
               {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                "LOCATION": "limits"}),
}
RATELIMIT_USE_CACHE = "limits"
# Requests per API token ("count/period", counted in each server process: api.limits), and
# the largest API body.
API_TOKEN_RATE = os.environ.get("API_TOKEN_RATE", "120/m")
API_MAX_BODY = 16 * 1024
# Whether bot accounts (api.BotAccount) may play rated games: an operator who wants the
# rated pools for people only turns it off, and a rated challenge to or from a bot is refused.
BOT_ACCOUNTS_RATED = env_flag("BOT_ACCOUNTS_RATED", True)
# Images drawn per client address (live.clients): a game's GIF costs seconds of CPU to draw
# once, a position's PNG a tenth of one. django-ratelimit's rates ("count/period").
EXPORT_GIF_RATE = os.environ.get("EXPORT_GIF_RATE", "10/m")
EXPORT_PNG_RATE = os.environ.get("EXPORT_PNG_RATE", "120/m")

# The live path (live/, docs/design.md). Seconds unless said otherwise; all from the
# environment so that operators, benchmarks and tests can set them.
def env_number(name, default, kind=int):
    value = os.environ.get(name, "").strip()
    return kind(value) if value else default


# Database threads per process for websocket work: writers (default: 2, or 1 on SQLite, which
# has one writer anyway) and readers (snapshots, lists: they never queue behind moves).
LIVE_DB_WRITERS = env_number("LIVE_DB_WRITERS", 0)
LIVE_DB_READERS = env_number("LIVE_DB_READERS", 4)
# Engine positions cached per process (play.positions): at least a few per game in play.
LIVE_POSITIONS = env_number("LIVE_POSITIONS", 4096)
# A process says it is alive (and refreshes its sockets' presence) this often; one not heard
# of for three heartbeats is taken for dead.
LIVE_HEARTBEAT = env_number("LIVE_HEARTBEAT", 10, float)
# Every open socket's group memberships are renewed, and game sockets are told the game's ply,
# this often.
LIVE_KEEPALIVE = env_number("LIVE_KEEPALIVE", 30, float)
# The API's NDJSON streams (api.streams): an empty line after this many quiet seconds, when
# the token is checked again (a revoked one ends the stream there).
API_STREAM_KEEPALIVE = env_number("API_STREAM_KEEPALIVE", 7, float)
# A crowd of new connections (a restart's pages coming back) is let in this many per turn of
# the event loop, waiting in a listening queue of this length meanwhile; their first requests
# and the ends of lost connections are taken this many per turn; and this many websocket
# handshakes go through the application at once (live.admission).
LIVE_ACCEPTS_PER_TURN = env_number("LIVE_ACCEPTS_PER_TURN", 8)
LIVE_ACCEPT_BACKLOG = env_number("LIVE_ACCEPT_BACKLOG", 4096)
LIVE_CROWD_PER_TURN = env_number("LIVE_CROWD_PER_TURN", 16)
LIVE_CONNECTING = env_number("LIVE_CONNECTING", 32)
# The sweeper (games whose time is up, presence of dead processes, abandoned seeks).
LIVE_SWEEP = env_number("LIVE_SWEEP", 2, float)
# A closed lobby socket still counts for this many seconds (a page reload is not a departure):
# its owner's real-time seeks close only once it has passed (lobby.presence).
LOBBY_PRESENCE_GRACE = env_number("LOBBY_PRESENCE_GRACE", 5, float)
# Seconds between tournament ticks: events started and ended, arena waves, Swiss rounds.
TOURNAMENT_TICK = env_number("TOURNAMENT_TICK", 2, float)
# Per socket: a burst of this many messages, then this many a second; after this many
# messages over the limit the socket is closed.
LIVE_RATE_BURST = env_number("LIVE_RATE_BURST", 30)
LIVE_RATE_PER_SECOND = env_number("LIVE_RATE_PER_SECOND", 10)
LIVE_FLOOD_CLOSE = env_number("LIVE_FLOOD_CLOSE", 200)
# Open sockets per logged-in user and per client address, in one server process.
LIVE_SOCKETS_PER_USER = env_number("LIVE_SOCKETS_PER_USER", 30)
LIVE_SOCKETS_PER_ADDRESS = env_number("LIVE_SOCKETS_PER_ADDRESS", 100)
# Snapshots (one per connection and per `snapshot` request) per client address and per
# account, across sockets and server processes (live.budget): a burst of this many, then this
# many a second.
LIVE_SNAPSHOT_BURST = env_number("LIVE_SNAPSHOT_BURST", 20)
LIVE_SNAPSHOT_PER_SECOND = env_number("LIVE_SNAPSHOT_PER_SECOND", 2, float)
# Where live.budget keeps its buckets in Redis: beside the channel layer's keys.
REDIS_PREFIX = os.environ.get("REDIS_PREFIX") or "asgi"

# Jobs run outside the server's event loop and request threads (jobs.runner). Each JOBS_*
# setting may also be given by its older BOT_* name (the jobs were the computer players' first).
def jobs_setting(name, default, kind=str):
    return env_number(f"JOBS_{name}", env_number(f"BOT_{name}", default, kind), kind)


# Where jobs run: "pool", worker processes owned by each server (the embedded default);
# "redis", a queue in Redis served by `manage.py jobs_worker` processes (the default with
# REDIS_URL); "eager", in the submitting process at once (the site tests). Alias BOT_JOBS.
JOBS_MODE = (os.environ.get("JOBS_MODE", "").strip() or os.environ.get("BOT_JOBS", "").strip()
             or ("redis" if REDIS_URL else "pool"))
# Worker processes of a server's pool (pool mode). Alias BOT_WORKERS.
JOBS_WORKERS = jobs_setting("WORKERS", 2, int)
# Pool mode: start the workers with the server, so that the first job does not wait for a
# fresh interpreter and Django's set-up (off: on the first job, as the tests' servers may).
JOBS_WORKERS_AT_START = env_flag("JOBS_WORKERS_AT_START",
                                 env_flag("BOT_WORKERS_AT_START", True))
# Pool mode: seconds between sweeps for jobs that should be in work and are not (a pool
# worker killed mid-job; with Redis the library redelivers instead). Alias BOT_SWEEP.
JOBS_SWEEP = jobs_setting("SWEEP", 5, float)
# Redis mode: Dramatiq's heartbeat time-out, in seconds: a worker silent this long is dead, and
# the library gives its unacked job to another (workers beat every third of it, busy or not;
# jobs.broker). Alias BOT_LEASE.
JOBS_LEASE = jobs_setting("LEASE", 10, float)
# The CPUs the workers think on, e.g. "2,3" (empty: any). Alias BOT_CPUS.
JOBS_CPUS = jobs_setting("CPUS", "")
# Active games against the computer one account may have at once (a new one is refused): each
# queues up to ~1.8 s of thinking a move on the workers everyone shares.
BOT_GAMES_PER_PLAYER = env_number("BOT_GAMES_PER_PLAYER", 3)
# Seconds between sweeps for jobs that should be in work and are not (a killed worker's).
BOT_SWEEP = env_number("BOT_SWEEP", 5, float)
# Redis mode: Dramatiq's heartbeat time-out (the old name of JOBS_LEASE).
BOT_LEASE = env_number("BOT_LEASE", 10, float)
# A computer-against-computer game always on, so the Watch page is never empty: on by default
# in development (DEBUG), off otherwise (and in the tests).
BOT_EXHIBITION = env_flag("BOT_EXHIBITION", DEBUG)
# Seconds at least between two actions of a game between computers, for the people watching.
BOT_EXHIBITION_PACE = env_number("BOT_EXHIBITION_PACE", 1.5, float)
# Seconds of a computer analysis's slice (analysis.jobs): the workers are shared with the
# computer players, whose moves wait for a slice at most.
ANALYSIS_SLICE = env_number("ANALYSIS_SLICE", 3, float)

# Tournaments (docs/tournaments.md). Recurring events, each created a day ahead by a periodic
# job: a JSON list (the format is tournaments.schedule's), or, unset, tournaments.schedule.DEFAULT
# (an hourly Hadron arena, a daily Tripen arena, a weekly correspondence Swiss per game) in
# development (DEBUG) and none otherwise (the tests). "[]" turns them off.
TOURNAMENT_SCHEDULE = os.environ.get("TOURNAMENT_SCHEDULE", "").strip() or None
# Computer players enter arenas with fewer than four people in: on by default in development.
TOURNAMENT_COMPUTERS = env_flag("TOURNAMENT_COMPUTERS", DEBUG)

# The opt-in mails waiting to go out are sent this often (notifications.mail.send_pending).
MAIL_EVERY = env_number("MAIL_EVERY", 60, float)

# When nobody acts (play.lapses, docs/protocol.md).
PLAY_FIRST_MOVE_SECONDS = env_number("PLAY_FIRST_MOVE_SECONDS", 30)
PLAY_CLAIM_AFTER_SECONDS = env_number("PLAY_CLAIM_AFTER_SECONDS", 30)
PLAY_UNTIMED_IDLE_DAYS = env_number("PLAY_UNTIMED_IDLE_DAYS", 30)
# Each player's vacation allowance per calendar year (UTC), in days (play.vacations).
PLAY_VACATION_DAYS = env_number("PLAY_VACATION_DAYS", 30)
# A player to move whose page a stopping server process closed (a restart's drain) is not
# charged for the time until their page is back, up to this many seconds after the close
# (play.services.back_after_restart, docs/protocol.md).
PLAY_RESTART_GRACE_SECONDS = env_number("PLAY_RESTART_GRACE_SECONDS", 5, float)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# First the log-in throttle (refuses locked-out accounts and addresses without checking the
# password), then the password check. Usernames are unique regardless of case
# (accounts.forms), so log-in ignores case too.
AUTHENTICATION_BACKENDS = [
    "accounts.throttle.LoginThrottleBackend",
    "accounts.backends.CaseInsensitiveModelBackend",
]

# Log-in throttle (django-axes, configured through accounts.throttle): LOGIN_FAILURE_LIMIT
# failed log-ins for one account (any case), or from one address, within LOGIN_COOLOFF_MINUTES
# lock log-in for that account and that address until that many minutes after the last
# failure. Failures while locked are not counted, so the wait shown is the wait there is.
# Logged-in players are never affected. The database keeps the counts, so several Daphne
# processes share them.
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# A successful log-in does not wipe the address's failures: else a guesser with an account of
# their own could log into it between guesses and never be locked out.
AXES_RESET_ON_SUCCESS = False
AXES_DISABLE_ACCESS_LOG = True  # no table of every successful log-in
AXES_USERNAME_CALLABLE = "accounts.throttle.throttled_username"
AXES_CLIENT_IP_CALLABLE = "accounts.throttle.client_address"
AXES_LOCKOUT_CALLABLE = "accounts.throttle.lockout_response"
AXES_HTTP_RESPONSE_CODE = 429
# How many reverse proxies in front of Daphne append the client's address to X-Forwarded-For
# (accounts.throttle.client_address). 0: the header is ignored, since anyone can send it.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT")

LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
# Django's storage, each file's URL worked out once (frontend.storage).
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "frontend.storage.StaticFiles"},
}
STATICFILES_DIRS = [BASE_DIR / "static"]
# Whitenoise serves straight from the finders, so the site works without `collectstatic`.
# A deployment that wants collected files sets STATIC_ROOT (e.g. /srv/tessera/static) and runs
# `manage.py collectstatic`; unset, whitenoise has no missing directory to warn about.
STATIC_ROOT = os.environ.get("STATIC_ROOT") or None
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# Content-Security-Policy (django-csp; tessera.security adds the page's ws:/wss: origin to
# connect-src). Everything from this site only: no inline scripts or event handlers (page data
# travels in <script type="application/json"> blocks), no inline style attributes (scripts
# style through the CSSOM, which CSP allows), no plugins, no framing, forms post here only.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF],
        "style-src": [SELF],
        "style-src-attr": [NONE],
        "img-src": [SELF],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [NONE],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Mail (password resets, opt-in notices): printed to the console unless configured.
if os.environ.get("EMAIL_URL"):
    _email = dj_email_url.parse(os.environ["EMAIL_URL"])
    EMAIL_BACKEND = _email["EMAIL_BACKEND"]
    EMAIL_HOST, EMAIL_PORT = _email["EMAIL_HOST"] or "localhost", _email["EMAIL_PORT"] or 25
    EMAIL_HOST_USER = _email["EMAIL_HOST_USER"] or ""
    EMAIL_HOST_PASSWORD = _email["EMAIL_HOST_PASSWORD"] or ""
    EMAIL_USE_TLS, EMAIL_USE_SSL = _email["EMAIL_USE_TLS"], _email["EMAIL_USE_SSL"]
    EMAIL_FILE_PATH = _email["EMAIL_FILE_PATH"] or None
elif os.environ.get("EMAIL_HOST"):
    EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    EMAIL_HOST = os.environ["EMAIL_HOST"]
    EMAIL_PORT = int(os.environ.get("EMAIL_PORT") or 25)
    EMAIL_HOST_USER = os.environ.get("EMAIL_HOST_USER", "")
    EMAIL_HOST_PASSWORD = os.environ.get("EMAIL_HOST_PASSWORD", "")
    EMAIL_USE_TLS = env_flag("EMAIL_USE_TLS")
    EMAIL_USE_SSL = env_flag("EMAIL_USE_SSL")
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
# A mail server must not hold a sweeper or a request for minutes.
EMAIL_TIMEOUT = int(os.environ.get("EMAIL_TIMEOUT") or 20)
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL") or "Tessera <tessera@localhost>"
SITE_URL = (os.environ.get("SITE_URL") or "http://127.0.0.1:8000").rstrip("/")

# One line per record with the process id and, where known, the game and user ids;
# LOG_FORMAT=json: one JSON object per line (ops.logs, docs/operations.md).
LOGGING = settings_logging(os.environ.get("LOG_FORMAT", "text").strip().lower(),
                           os.environ.get("LOG_LEVEL", "WARNING"))

# Seconds a Daphne process keeps serving after SIGTERM, /readyz saying 503, before it stops
# (ops.draining): at least the load balancer's interval between health checks.
READY_DRAIN_SECONDS = env_number("READY_DRAIN_SECONDS", 0, float)
# Then it stops listening and closes its sockets over this many seconds (code 4012), so that
# their pages reconnect to the other processes in a trickle, not all in one instant.
DRAIN_SPREAD_SECONDS = env_number("DRAIN_SPREAD_SECONDS", 0, float)

# /metrics (ops.views): answered only with `Authorization: Bearer <METRICS_TOKEN>`, or to a
# peer whose address is in METRICS_ALLOWED_ADDRESSES (comma-separated addresses or networks,
# e.g. 10.0.0.0/8); neither set: 404. PROMETHEUS_MULTIPROC_DIR: see ops.metrics.
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "").strip()
METRICS_ALLOWED_ADDRESSES = [ipaddress.ip_network(item, strict=False)
                             for item in env_list("METRICS_ALLOWED_ADDRESSES")]
