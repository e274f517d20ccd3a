"""Settings read the environment; each case runs in a fresh interpreter because settings are
read once per process."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Long and varied enough for Django's deploy check (50 characters, 5 different ones).
KEY = "settings-test-key-0123456789-abcdefghijklmnopqrstuvwxyz"

PRINT_SETTINGS = (
    "import json, django; from django.conf import settings; django.setup(); print(json.dumps({"
    "'proxy_ssl': settings.SECURE_PROXY_SSL_HEADER, 'ssl_redirect': settings.SECURE_SSL_REDIRECT,"
    "'hsts': [settings.SECURE_HSTS_SECONDS, settings.SECURE_HSTS_INCLUDE_SUBDOMAINS,"
    " settings.SECURE_HSTS_PRELOAD],"
    "'secure_cookies': [settings.SESSION_COOKIE_SECURE, settings.CSRF_COOKIE_SECURE],"
    "'login': [settings.AXES_FAILURE_LIMIT, settings.AXES_COOLOFF_TIME.total_seconds(),"
    " settings.TRUSTED_PROXY_COUNT],"
    "'debug': settings.DEBUG, 'key': settings.SECRET_KEY, 'hosts': settings.ALLOWED_HOSTS,"
    "'engine': settings.DATABASES['default']['ENGINE'], 'name': str(settings.DATABASES['default']['NAME']),"
    "'layer': settings.CHANNEL_LAYERS['default']['BACKEND'],"
    "'redis': settings.CHANNEL_LAYERS['default'].get('CONFIG', {}).get('hosts'),"
    "'prefix': settings.CHANNEL_LAYERS['default'].get('CONFIG', {}).get('prefix')}))"
)


def run_settings(**env_vars):
    env = {k: v for k, v in os.environ.items()
           if k not in {"SECRET_KEY", "DEBUG", "ALLOWED_HOSTS", "DATABASE_URL", "REDIS_URL", "REDIS_PREFIX",
                        "LOGIN_FAILURE_LIMIT", "LOGIN_COOLOFF_MINUTES", "TRUSTED_PROXY_COUNT"}
           and not k.startswith(("SECURE_", "SESSION_COOKIE", "CSRF_COOKIE"))}
    env.update(env_vars, DJANGO_SETTINGS_MODULE="tessera.settings",
               PYTHONPATH=str(ROOT / "site"))
    return subprocess.run([sys.executable, "-c", PRINT_SETTINGS], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


def settings_with(**env_vars):
    result = run_settings(**env_vars)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_refuses_to_start_without_secret_key_when_debug_is_off():
    result = run_settings()
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert "SECRET_KEY is not set" in result.stderr


@pytest.mark.parametrize("key, words", [
    (" ", "SECRET_KEY is not set"),
    ("\t \n", "SECRET_KEY is not set"),
    ("s3cret", "SECRET_KEY is too weak: it is 6 characters long."),
    ("k" * 60, "SECRET_KEY is too weak: it uses only 1 different character."),
    ("abcd" * 20, "SECRET_KEY is too weak: it uses only 4 different characters."),
    ("django-insecure-" + KEY, "SECRET_KEY is too weak: it starts with 'django-insecure-'"),
])
def test_refuses_a_weak_secret_key_when_debug_is_off(key, words):
    result = run_settings(SECRET_KEY=key)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert words in result.stderr, result.stderr
    # The message says what a good key is and how to make one.
    assert "at least 50 characters" in result.stderr
    assert "get_random_secret_key" in result.stderr


def test_a_weak_secret_key_is_fine_for_development():
    assert settings_with(SECRET_KEY="s3cret", DEBUG="1")["key"] == "s3cret"


def test_manage_py_refuses_too():
    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG"}}
    result = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "SECRET_KEY is not set" in result.stderr


def test_debug_has_development_key_and_embedded_defaults():
    s = settings_with(DEBUG="1")
    assert s["debug"] is True
    assert s["key"].startswith("django-insecure-")
    assert s["engine"] == "django.db.backends.sqlite3"
    assert s["name"] == str(ROOT / "db.sqlite3")
    assert s["layer"] == "live.layers.LocalChannelLayer"


def test_debug_is_off_by_default_and_key_comes_from_environment():
    s = settings_with(SECRET_KEY=KEY, DEBUG="no")
    assert s["debug"] is False and s["key"] == KEY


def test_hosts_database_and_redis_from_environment():
    s = settings_with(
        SECRET_KEY=KEY,
        ALLOWED_HOSTS="tessera.example, 127.0.0.1",
        DATABASE_URL="postgres://player:pw@db.example:5432/tessera",
        REDIS_URL="redis://cache.example:6379/1",
    )
    assert s["hosts"] == ["tessera.example", "127.0.0.1"]
    assert s["engine"] == "django.db.backends.postgresql"
    assert s["name"] == "tessera"
    assert s["layer"] == "live.layers.RedisNewsLayer"
    assert s["redis"] == [{"address": "redis://cache.example:6379/1", "socket_timeout": None,
                           "client_name": "asgi"}]
    assert s["prefix"] == "asgi"
    assert settings_with(SECRET_KEY=KEY, REDIS_URL="redis://r:6379/0", REDIS_PREFIX="site2")["prefix"] == "site2"


def test_asgi_application_imports_with_site_on_path():
    env = {k: v for k, v in os.environ.items() if k != "DEBUG"}
    env.update(SECRET_KEY=KEY, PYTHONPATH=str(ROOT / "site"))
    code = "import tessera.asgi as a; print(type(a.application).__name__)"
    result = subprocess.run([sys.executable, "-c", code], cwd="/", env=env,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ServerLifecycle"


def test_https_settings_default_off_for_development():
    s = settings_with(SECRET_KEY=KEY)
    assert s["proxy_ssl"] is None and s["ssl_redirect"] is False
    assert s["hsts"] == [0, False, False] and s["secure_cookies"] == [False, False]
    assert s["login"] == [5, 900.0, 0]


def test_https_and_log_in_settings_from_environment():
    s = settings_with(SECRET_KEY=KEY, SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto",
                      SECURE_SSL_REDIRECT="1", SECURE_HSTS_SECONDS="3600",
                      SECURE_HSTS_INCLUDE_SUBDOMAINS="yes", SECURE_HSTS_PRELOAD="on",
                      SESSION_COOKIE_SECURE="true", CSRF_COOKIE_SECURE="1",
                      LOGIN_FAILURE_LIMIT="10", LOGIN_COOLOFF_MINUTES="30",
                      TRUSTED_PROXY_COUNT="2")
    assert s["proxy_ssl"] == ["HTTP_X_FORWARDED_PROTO", "https"]
    assert s["ssl_redirect"] is True
    assert s["hsts"] == [3600, True, True] and s["secure_cookies"] == [True, True]
    assert s["login"] == [10, 1800.0, 2]
    other = settings_with(SECRET_KEY=KEY, SECURE_PROXY_SSL_HEADER="X-Scheme: secure")
    assert other["proxy_ssl"] == ["HTTP_X_SCHEME", "secure"]


@pytest.mark.parametrize("name, value, words", [
    ("SECURE_HSTS_SECONDS", "a year", "SECURE_HSTS_SECONDS must be a whole number of 0 or more"),
    ("SECURE_HSTS_SECONDS", "-5", "SECURE_HSTS_SECONDS must be a whole number of 0 or more"),
    ("LOGIN_FAILURE_LIMIT", "0", "LOGIN_FAILURE_LIMIT must be a whole number of 1 or more"),
    ("SECURE_PROXY_SSL_HEADER", "X Forwarded Proto", "must be a header name"),
])
def test_bad_values_are_refused_with_the_reason(name, value, words):
    result = run_settings(SECRET_KEY=KEY, **{name: value})
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and words in result.stderr, result.stderr
