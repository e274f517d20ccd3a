"""Look-alike usernames (accounts.lookalike): one alphabet per name, and no name that looks
like an existing one, on the sign-up page, in `manage.py adduser` and in the admin."""
import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.urls import reverse

from accounts.lookalike import skeleton

PASSWORD = "quiet-harbour-1729"
CYRILLIC_A = "\u0430"

pytestmark = pytest.mark.django_db


def people():
    """The accounts of people (the computer players' are made by the migrations)."""
    return get_user_model().objects.filter(bot__isnull=True)


def sign_up(client, username):
    return client.post(reverse("accounts:signup"),
                       {"username": username, "password1": PASSWORD, "password2": PASSWORD})


def refused(response, *words):
    assert response.status_code == 200
    errors = " ".join(response.context["form"].errors.get("username", []))
    for word in words:
        assert word in errors, errors
    return True


@pytest.fixture
def existing(django_user_model):
    for name in ("alice", "bOb", "ape"):
        django_user_model.objects.create_user(name)


@pytest.mark.parametrize("name, words", [
    (CYRILLIC_A + "lice", ["one alphabet", "Cyrillic and Latin"]),     # Cyrillic а + Latin
    ("\u0391lice", ["one alphabet", "Greek and Latin"]),                # Greek capital alpha
    ("ap\u0435x", ["one alphabet", "Cyrillic and Latin"]),            # Cyrillic е
    ("aIice", ["looks too much like", "“alice”"]),                     # capital I for l
    ("a1ice", ["looks too much like", "“alice”"]),                     # digit one for l
    ("b0b", ["looks too much like", "“bOb”"]),                         # zero for O
    ("\u0430\u0440\u0435", ["looks too much like", "“ape”"]),          # all Cyrillic: аре
    ("ＡＬＩＣＥ", ["already taken"]),                                    # fullwidth: NFKC
    ("ALICE", ["already taken"]),
])
def test_look_alikes_are_refused_with_the_reason(client, existing, name, words):
    assert refused(sign_up(client, name), *words)
    assert people().count() == 3


def test_mixed_scripts_are_refused_even_without_a_look_alike(client):
    assert refused(sign_up(client, CYRILLIC_A + "ndrew"), "one alphabet")


@pytest.mark.parametrize("name", ["Дмитрий", "李小龍", "José", "Zoë_99", "Ωμέγα", "bob.b",
                                  "alice2", "ali_ce"])
def test_names_in_one_script_that_look_like_nobody_are_welcome(client, existing, name):
    assert sign_up(client, name).status_code == 302
    assert get_user_model().objects.filter(username=name).exists()


def test_the_sign_up_form_states_the_rule(client):
    html = client.get(reverse("accounts:signup")).content.decode()
    assert "letters of one alphabet, and not a look-alike of another player&#x27;s name" in html \
        or "letters of one alphabet, and not a look-alike of another player's name" in html


def test_skeletons():
    # Capital I passes for small l as written; "ALICE" itself is "alice" in another case,
    # which the names' case-insensitive uniqueness refuses.
    assert skeleton("aIice") == skeleton("a1ice") == skeleton(CYRILLIC_A + "lice") \
        == skeleton("Alice") == "alice"
    assert skeleton("b0b") == skeleton("BOB") == "bob"
    assert skeleton("\u0430\u0440\u0435") == "ape"  # Cyrillic
    # Distinct letters stay distinct.
    for one, other in [("kai", "kal"), ("alice", "alicia"), ("bob", "bib"), ("mia", "rnia")]:
        assert skeleton(one) != skeleton(other)


def test_adduser_applies_the_same_rule(existing):
    with pytest.raises(CommandError, match="one alphabet"):
        call_command("adduser", CYRILLIC_A + "lice", password=PASSWORD)
    with pytest.raises(CommandError, match="looks too much like"):
        call_command("adduser", "aIice", password=PASSWORD)
    assert people().count() == 3


def inline_data(page):
    """What the admin's user page posts for its inlines (the profile) as they stand."""
    data = {}
    for inline in page.context["inline_admin_formsets"]:
        formset = inline.formset
        management = formset.management_form
        data.update({f"{formset.prefix}-{name}": management[name].value()
                     for name in management.fields})
        for form in formset.forms:
            for name in form.fields:
                value = form[name].value()
                if value not in (None, False):
                    data[form.add_prefix(name)] = "on" if value is True else value
    return data


def test_the_admin_applies_the_same_rule(admin_client, existing):
    add = admin_client.post(reverse("admin:auth_user_add"), {
        "username": CYRILLIC_A + "lice", "password1": PASSWORD, "password2": PASSWORD,
        "usable_password": "true"})
    assert add.status_code == 200
    assert "one alphabet" in add.content.decode()
    assert not get_user_model().objects.filter(username=CYRILLIC_A + "lice").exists()

    ape = get_user_model().objects.get(username="ape")
    url = reverse("admin:auth_user_change", args=[ape.pk])
    page = admin_client.get(url)
    form = page.context["adminform"].form
    data = {name: value for name, value in form.initial.items()
            if value is not None and name not in ("groups", "user_permissions", "password")}
    data.update(inline_data(page))
    data.update(date_joined_0=ape.date_joined.strftime("%Y-%m-%d"),
                date_joined_1=ape.date_joined.strftime("%H:%M:%S"), last_login_0="",
                last_login_1="")
    renamed = admin_client.post(url, {**data, "username": "aIice"})
    assert renamed.status_code == 200
    assert "looks too much like" in renamed.content.decode()
    kept = admin_client.post(url, {**data, "username": "ape"})
    assert kept.status_code == 302


@pytest.mark.parametrize("name", [
    "computer-level-4", "computer_level_4", "Computer.Level.1", "c0mputer-level-3",
    "COMPUTER-1EVEL-2", "computerlevel9", "c0mputer_1evel", "computer-level",
])
def test_names_that_pass_for_a_computer_are_refused_whether_or_not_it_exists(client, name):
    from bots.models import Bot

    # Even with no computer account at all (a level not made yet).
    get_user_model().objects.filter(bot__isnull=False).delete()
    assert not Bot.objects.exists()
    assert refused(sign_up(client, name), "belong to the site's computer players")
    assert not people().exists()


@pytest.mark.parametrize("name", ["computer", "levelcomputer", "my-computer-level", "compute"])
def test_other_names_with_those_words_are_free(client, name):
    assert sign_up(client, name).status_code == 302


def test_the_computers_accounts_come_with_the_migrations(transactional_db):
    """The migration's own function, run on the migrated models (the test database was made by
    the migrations, but a transactional test before this one may have emptied the tables): one
    account per level, a computer's profile, no usable password; running it again changes
    nothing."""
    import importlib

    from django.apps import apps

    from accounts.models import profile_of
    from bots.models import Bot
    from games import bots as engine_bots

    migration = importlib.import_module("accounts.migrations.0002_computer_accounts")
    for _ in range(2):
        migration.make_computer_accounts(apps, None)
    bots = list(Bot.objects.select_related("user"))
    assert [(b.level, b.user.username) for b in bots] == [
        (level, f"computer-level-{level}") for level in sorted(engine_bots.LEVELS)]
    assert all(profile_of(b.user).is_bot and not b.user.has_usable_password() for b in bots)
