"""Fixtures of the site tests (Django's test client and ORM). Helpers that play games live in
tests/site/played.py: import them from there, never from a module named conftest."""
import pytest
from django.core.cache import cache, caches

from archive import positions


@pytest.fixture(autouse=True)
def quick_password_hashing(settings):
    """A cheap hasher in-process: the default one costs most of a second per password on
    purpose, and these tests are about the site's forms and views, not about PBKDF2 (the
    Daphne processes of the browser tests keep the real settings)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def fresh_limits(settings):
    """Each test starts with no exports counted against its address (archive.views), in
    memory: with REDIS_URL the limits' cache is a Redis database other processes of the run
    use too, which a clear() would empty."""
    settings.CACHES = {**settings.CACHES, "limits": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "test-limits"}}
    caches["limits"].clear()


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("alice")


@pytest.fixture
def bob(django_user_model):
    return django_user_model.objects.create_user("bob")


@pytest.fixture
def carol(django_user_model):
    return django_user_model.objects.create_user("carol")


@pytest.fixture
def fresh_cache():
    """Empty caches, so a test sees what its own requests draw and replay: Django's cache
    (drawings) and the archive's replayed positions, both kept across tests otherwise."""
    cache.clear()
    positions.replay_states.clear()


@pytest.fixture
def sent(django_capture_on_commit_callbacks):
    """`with sent() as news:` runs the block and its commit hooks, and collects what it sent to
    the channel layer: (group, message) pairs, messages decoded, in order."""
    import json
    from contextlib import contextmanager

    from live.outbox import Outbox

    @contextmanager
    def capture():
        news = []
        with Outbox() as box, django_capture_on_commit_callbacks(execute=True):
            yield news
        for group, event in box.events:
            news.append((group, json.loads(event["text"]) if "text" in event else event))
    return capture
