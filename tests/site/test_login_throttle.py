"""The log-in throttle (accounts.throttle, django-axes): failed log-ins are counted per account
(any case) and per address; at the limit, log-ins for that account and from that address are
refused without checking the password, with HTTP 429, the reason and how long to wait, until
the cool-off has passed. Other players and other addresses keep logging in."""
import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.hashers import MD5PasswordHasher
from django.test import RequestFactory
from django.urls import reverse

from accounts import throttle

PASSWORD = "quiet-harbour-1729"
GUESSER = "203.0.113.66"  # documentation addresses (RFC 5737)
ELSEWHERE = "198.51.100.7"

pytestmark = pytest.mark.django_db


class CountingHasher(MD5PasswordHasher):
    """Counts the passwords hashed: the work a guesser makes the server do. A check hashes the
    guess once (verify() calls encode()); so does a guess at a name nobody has (Django hashes
    it anyway, so that the time taken does not tell which names exist)."""

    calls = 0

    def encode(self, password, salt):
        CountingHasher.calls += 1
        return super().encode(password, salt)


@pytest.fixture(autouse=True)
def counting_hasher(settings):
    settings.PASSWORD_HASHERS = [f"{__name__}.CountingHasher"]
    CountingHasher.calls = 0
    return CountingHasher


@pytest.fixture
def alice(django_user_model, counting_hasher):
    user = django_user_model.objects.create_user("Alice", password=PASSWORD)
    counting_hasher.calls = 0
    return user


@pytest.fixture
def bob(django_user_model, counting_hasher):
    user = django_user_model.objects.create_user("bob", password=PASSWORD)
    counting_hasher.calls = 0
    return user


def log_in(client, username, password, address=GUESSER, url=None, **headers):
    return client.post(url or reverse("accounts:login"),
                       {"username": username, "password": password},
                       REMOTE_ADDR=address, **headers)


def logged_in(response):
    return response.status_code == 302


def refused_as_throttled(response):
    return (response.status_code == 429 and "Too many failed log-ins" in response.content.decode()
            and int(response["Retry-After"]) > 0)


def pass_cool_off():
    """As if the cool-off had passed: every recorded failure is made that much older."""
    for attempt in AccessAttempt.objects.all():
        attempt.attempt_time -= settings.AXES_COOLOFF_TIME
        attempt.save(update_fields=["attempt_time"])


def test_300_wrong_passwords_check_only_the_first_few(client, alice, counting_hasher):
    limit = settings.AXES_FAILURE_LIMIT
    answers = [log_in(client, name, f"guess-{i}")
               for i, name in zip(range(300), ["Alice", "alice", "ALICE"] * 100)]
    # Below the limit: the usual "wrong password" page; from the limit on: refused.
    assert all(r.status_code == 200 and "correct username and password" in r.content.decode()
               for r in answers[:limit - 1])
    assert all(refused_as_throttled(r) for r in answers[limit - 1:])
    assert counting_hasher.calls == limit
    # The right password is refused too while the lock lasts: a guesser learns nothing.
    assert refused_as_throttled(log_in(client, "alice", PASSWORD))
    assert counting_hasher.calls == limit


def test_the_lock_says_why_and_how_long_and_keeps_the_form(client, alice):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        response = log_in(client, "Alice", "nope")
    html = response.content.decode()
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    assert f"Please try again in {minutes} minutes." in html
    assert 'name="username"' in html and 'value="Alice"' in html  # the form, filled in
    assert 0 < int(response["Retry-After"]) <= settings.AXES_COOLOFF_TIME.total_seconds()


def test_json_clients_get_json(client, alice):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        response = log_in(client, "alice", "nope", HTTP_ACCEPT="application/json")
    assert response.status_code == 429
    body = response.json()
    assert body["error"] == "login_throttled"
    assert "Too many failed log-ins" in body["message"]
    assert body["retry_after"] == int(response["Retry-After"]) > 0


def test_other_players_and_addresses_are_unaffected(client, alice, bob):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, "alice", "nope", address=GUESSER)
    # Bob, elsewhere, logs in as usual.
    assert logged_in(log_in(client, "bob", PASSWORD, address=ELSEWHERE))
    client.logout()
    # Alice's account is locked wherever the attempt comes from (a guesser may use many
    # addresses), and the guesser's address is locked for every account.
    assert refused_as_throttled(log_in(client, "alice", PASSWORD, address=ELSEWHERE))
    assert refused_as_throttled(log_in(client, "bob", PASSWORD, address=GUESSER))


def test_guessing_at_many_accounts_from_one_address_is_locked(client, alice, bob,
                                                              counting_hasher):
    names = [f"player{i}" for i in range(50)]
    answers = [log_in(client, name, "nope") for name in names]
    limit = settings.AXES_FAILURE_LIMIT
    assert not any(refused_as_throttled(r) for r in answers[:limit - 1])
    assert all(refused_as_throttled(r) for r in answers[limit - 1:])
    assert counting_hasher.calls == limit
    assert logged_in(log_in(client, "bob", PASSWORD, address=ELSEWHERE))


def test_guessing_from_many_addresses_locks_the_account(client, alice):
    addresses = [f"192.0.2.{i}" for i in range(1, 40)]
    answers = [log_in(client, "ALICE", "nope", address=a) for a in addresses]
    limit = settings.AXES_FAILURE_LIMIT
    assert all(refused_as_throttled(r) for r in answers[limit - 1:])
    assert refused_as_throttled(log_in(client, "alice", PASSWORD, address="192.0.2.200"))


def test_the_lock_lifts_after_the_cool_off(client, alice, counting_hasher):
    for _ in range(settings.AXES_FAILURE_LIMIT + 20):
        log_in(client, "alice", "nope")
    assert refused_as_throttled(log_in(client, "alice", PASSWORD))
    pass_cool_off()
    assert logged_in(log_in(client, "alice", PASSWORD))


def test_a_few_mistakes_do_not_lock(client, alice):
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert log_in(client, "alice", "nope").status_code == 200
    assert logged_in(log_in(client, "Alice", PASSWORD))


def test_the_admin_log_in_is_throttled_too(client, django_user_model):
    django_user_model.objects.create_superuser("boss", password=PASSWORD)
    url = reverse("admin:login")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        response = log_in(client, "boss", "nope", url=url)
    assert refused_as_throttled(response)
    assert refused_as_throttled(log_in(client, "boss", PASSWORD, url=url))


def test_authenticate_without_a_request_is_not_throttled(alice):
    """Server-side code (manage.py shell, tests) has no client to throttle."""
    from django.contrib.auth import authenticate
    assert authenticate(username="alice", password=PASSWORD) == alice


# -- where a request comes from ---------------------------------------------------------------

def address_of(**meta):
    return throttle.client_address(RequestFactory().get("/", **meta))


def test_forwarded_for_is_ignored_without_a_trusted_proxy(settings):
    settings.TRUSTED_PROXY_COUNT = 0
    assert address_of(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="1.2.3.4") == "10.0.0.2"


def test_behind_trusted_proxies_the_address_the_outermost_one_saw(settings):
    settings.TRUSTED_PROXY_COUNT = 1
    # The client wrote "1.2.3.4" itself; the proxy appended the address it saw.
    assert address_of(REMOTE_ADDR="10.0.0.2",
                      HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.7") == "198.51.100.7"
    settings.TRUSTED_PROXY_COUNT = 2
    assert address_of(REMOTE_ADDR="10.0.0.3",
                      HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.7, 10.0.0.2") == "198.51.100.7"
    # Fewer entries than proxies: not through them all, so only the peer is known.
    assert address_of(REMOTE_ADDR="10.0.0.3", HTTP_X_FORWARDED_FOR="1.2.3.4") == "10.0.0.3"


def test_a_forged_forwarded_for_does_not_escape_the_lock(client, alice, settings):
    settings.TRUSTED_PROXY_COUNT = 0
    answers = [log_in(client, f"name{i}", "nope", HTTP_X_FORWARDED_FOR=f"192.0.2.{i}")
               for i in range(20)]
    assert refused_as_throttled(answers[-1])


def test_a_name_the_database_folds_onto_another_is_not_that_account(client, django_user_model):
    """PostgreSQL's UPPER() folds the dotless "ı" into "I": "vıctim" matched "victim" in the
    log-in lookup while the throttle counted "vıctim", so guesses from many addresses went
    past the account's lock. One name key now decides both (accounts.names); on SQLite the
    lookup never matched, and this checks the same holds on PostgreSQL."""
    django_user_model.objects.create_user("victim", password=PASSWORD)
    for number in range(settings.AXES_FAILURE_LIMIT):
        log_in(client, "VICTIM", "nope", address=f"203.0.113.{number}")
    # The account is locked, whatever case or look-alike spelling the guesser tries.
    assert refused_as_throttled(log_in(client, "Victim", PASSWORD, address=ELSEWHERE))
    response = log_in(client, "vıctim", PASSWORD, address="198.51.100.99")
    assert not logged_in(response) and "_auth_user_id" not in client.session


def test_the_throttle_and_the_lookup_read_a_name_alike():
    from accounts.names import name_key
    request = RequestFactory().post("/accounts/login/")
    for typed in ("Alice", "ALICE", "ａｌｉｃｅ", "ALİCE"):
        assert throttle.throttled_username(request, {"username": typed}) == name_key(typed)
    assert name_key("ａｌｉｃｅ") == name_key("ALICE") == "alice"
    assert name_key("vıctim") != name_key("victim")
