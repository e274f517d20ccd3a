"""E-mail on sign-up and in the settings, the settings page, the board choices handed to the
page scripts, and a forgotten password recovered through Django's reset views (mail in the
test run goes to Django's locmem outbox)."""
import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import override_settings
from django.urls import reverse

from accounts.models import Profile, profile_of

PASSWORD = "quiet-harbour-1729"

pytestmark = pytest.mark.django_db


def test_sign_up_takes_an_optional_email(client):
    client.post(reverse("accounts:signup"), {"username": "dora", "password1": PASSWORD,
                                             "password2": PASSWORD})
    client.logout()
    client.post(reverse("accounts:signup"), {"username": "eve", "email": "eve@example.org",
                                             "password1": PASSWORD, "password2": PASSWORD})
    emails = dict(get_user_model().objects.filter(bot__isnull=True)
                  .values_list("username", "email"))
    assert emails == {"dora": "", "eve": "eve@example.org"}
    response = client.get(reverse("accounts:signup"))
    assert response.status_code == 302  # logged in: no second sign-up


def test_sign_up_refuses_a_malformed_email(client):
    response = client.post(reverse("accounts:signup"), {
        "username": "fred", "email": "not an address", "password1": PASSWORD,
        "password2": PASSWORD})
    assert response.status_code == 200
    assert "Enter a valid email address." in response.content.decode()
    assert not get_user_model().objects.filter(username="fred").exists()


def test_settings_need_an_account(client):
    response = client.get(reverse("accounts:settings"))
    assert response.status_code == 302 and reverse("accounts:login") in response.url


def test_settings_store_email_mails_and_board_choices(client, alice):
    client.force_login(alice)
    page = client.get(reverse("accounts:settings")).content.decode()
    for label in ("Mail me when a correspondence opponent has moved",
                  "Show legal-move hints on the board", "Confirm each move"):
        assert label in page
    response = client.post(reverse("accounts:settings"), {
        "email": "alice@example.org", "mail_on_move": "on", "show_hints": "on",
        "confirm_move": "on"})
    assert response.status_code == 302
    alice.refresh_from_db()
    profile = Profile.objects.get(user=alice)
    assert alice.email == "alice@example.org"
    assert (profile.mail_on_move, profile.mail_on_challenge) == (True, False)
    assert profile.board_prefs() == {"show_hints": True, "sounds": False,
                                     "confirm_move": True, "hide_chat": False}


def test_mails_need_an_address(client, alice):
    client.force_login(alice)
    response = client.post(reverse("accounts:settings"), {"email": "", "mail_on_challenge": "on"})
    assert response.status_code == 200
    assert "Give an e-mail address to receive mails." in response.content.decode()
    assert not profile_of(alice).mail_on_challenge


def test_every_page_hands_the_board_choices_to_its_scripts(client, alice):
    assert 'id="account-prefs"' not in client.get(reverse("home")).content.decode()
    profile = profile_of(alice)
    profile.hide_chat = True
    profile.save()
    client.force_login(alice)
    page = client.get(reverse("rules:index")).content.decode()
    found = re.search(r'<script id="account-prefs" type="application/json">(.*?)</script>', page)
    assert json.loads(found[1]) == {"show_hints": True, "sounds": True, "confirm_move": False,
                                    "hide_chat": True}


def test_an_address_longer_than_the_column_is_a_form_error(client, alice):
    """Django's address check allows 320 characters, the account's column 254: PostgreSQL
    answered the longer ones with a server error."""
    client.force_login(alice)
    long_address = "a" * 63 + "@" + ".".join(["b" * 60] * 4) + ".org"
    assert 254 < len(long_address) <= 320
    response = client.post(reverse("accounts:settings"), {"email": long_address})
    assert response.status_code == 200
    assert "at most 254 characters" in response.content.decode()
    alice.refresh_from_db()
    assert alice.email != long_address


def test_a_profile_address_with_a_nul_is_not_found(client, alice):
    assert client.get("/u/%00/").status_code == 404
    assert client.get("/u/al%00ice/").status_code == 404
    assert client.get("/u/alice/").status_code == 200


def test_a_forgotten_password_is_reset_through_the_mailed_link(client, django_user_model):
    django_user_model.objects.create_user("gina", email="gina@example.org", password=PASSWORD)
    login = client.get(reverse("accounts:login")).content.decode()
    assert reverse("accounts:password_reset") in login and "Forgot password?" in login

    response = client.post(reverse("accounts:password_reset"), {"email": "gina@example.org"})
    assert response.url == reverse("accounts:password_reset_done")
    assert len(mail.outbox) == 1
    sent = mail.outbox[0]
    assert sent.to == ["gina@example.org"] and sent.subject == "Your Tessera password"
    assert "gina" in sent.body
    link = re.search(r"http://127.0.0.1:8000(/accounts/password/reset/\S+/\S+/)", sent.body)[1]

    form = client.get(link, follow=True)
    assert "Choose a new password" in form.content.decode()
    new = "a-brand-new-secret-42"
    done = client.post(form.redirect_chain[-1][0], {"new_password1": new, "new_password2": new})
    assert done.url == reverse("accounts:password_reset_complete")
    assert client.login(username="gina", password=new)
    # The link works once.
    again = client.get(link, follow=True).content.decode()
    assert "This link does not work any more" in again


@override_settings(SITE_URL="https://tessera.example",
                   ALLOWED_HOSTS=["testserver", "localhost"])
def test_the_reset_link_is_built_from_the_sites_address_not_the_host_header(
        client, django_user_model):
    django_user_model.objects.create_user("gina", email="gina@example.org", password=PASSWORD)
    client.post(reverse("accounts:password_reset"), {"email": "gina@example.org"},
                HTTP_HOST="localhost:1")
    body = mail.outbox[0].body
    assert re.search(r"^https://tessera\.example/accounts/password/reset/\S+/\S+/$", body, re.M)
    assert "localhost" not in body


def test_an_unknown_address_sends_nothing_and_says_the_same(client):
    response = client.post(reverse("accounts:password_reset"), {"email": "nobody@example.org"})
    assert response.url == reverse("accounts:password_reset_done")
    assert mail.outbox == []


def test_a_board_choice_made_on_the_game_page_is_kept_on_the_account(client, alice):
    client.force_login(alice)
    assert client.post("/accounts/settings/board/", {"name": "show_hints", "value": "false"},
                       HTTP_ACCEPT="application/json").json() == {"ok": True}
    assert profile_of(alice).show_hints is False
    refused = client.post("/accounts/settings/board/", {"name": "email", "value": "x@y.z"})
    assert refused.status_code == 400
    client.logout()
    assert client.post("/accounts/settings/board/", {"name": "sounds", "value": "false"}).status_code == 302
