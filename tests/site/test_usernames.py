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
    assert get_user_model().objects.count() == 3


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
    assert get_user_model().objects.count() == 3


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
