import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.urls import reverse

PASSWORD = "quiet-harbour-1729"

pytestmark = pytest.mark.django_db


def sign_up(client, username, password1=PASSWORD, password2=PASSWORD):
    return client.post(
        reverse("accounts:signup"),
        {"username": username, "password1": password1, "password2": password2},
    )


def messages_of(response):
    return [str(m) for m in get_messages(response.wsgi_request)]


@pytest.fixture
def alice(django_user_model):
    return django_user_model.objects.create_user("Alice", password=PASSWORD)


def test_sign_up_creates_account_and_logs_in(client):
    response = sign_up(client, "carol_99")
    assert response.status_code == 302 and response.url == reverse("home")
    user = get_user_model().objects.get(username="carol_99")
    assert client.session["_auth_user_id"] == str(user.pk)
    assert "Welcome to Tessera, carol_99!" in messages_of(response)


@pytest.mark.parametrize(
    "username, expected",
    [
        ("ab", "Usernames are 3 to 20 characters long."),
        ("a" * 21, "Usernames are 3 to 20 characters long."),
        ("bad name!", "Enter a valid username"),
        ("", "This field is required."),
    ],
)
def test_sign_up_rejects_bad_usernames(client, username, expected):
    response = sign_up(client, username)
    assert response.status_code == 200
    assert expected in response.content.decode()
    assert "Your account was not created" in " ".join(messages_of(response))
    assert not get_user_model().objects.filter(bot__isnull=True).exists()  # no person


def test_sign_up_rejects_mismatched_passwords(client):
    response = sign_up(client, "dave", PASSWORD, PASSWORD + "x")
    assert response.status_code == 200
    assert "The two password fields didn’t match." in response.content.decode()
    assert not get_user_model().objects.filter(bot__isnull=True).exists()  # no person


def test_sign_up_rejects_weak_password(client):
    response = sign_up(client, "dave", "12345678", "12345678")
    assert response.status_code == 200
    assert "This password is too common." in response.content.decode()


def test_sign_up_rejects_username_differing_only_in_case(client, alice):
    response = sign_up(client, "aLiCe")
    assert response.status_code == 200
    assert "already taken" in response.content.decode()
    assert get_user_model().objects.filter(username__iexact="alice").count() == 1


def test_log_in_ignores_username_case(client, alice):
    response = client.post(reverse("accounts:login"), {"username": "ALICE", "password": PASSWORD})
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(alice.pk)
    assert "Welcome back, Alice." in messages_of(response)


def test_log_in_with_wrong_password_fails_clearly(client, alice):
    response = client.post(reverse("accounts:login"), {"username": "Alice", "password": "nope"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "Please enter a correct username and password" in page
    assert "You are not logged in" in " ".join(messages_of(response))
    assert "_auth_user_id" not in client.session


def test_log_in_follows_next(client, alice):
    response = client.post(
        reverse("accounts:login") + "?next=/rules/hadron/",
        {"username": "Alice", "password": PASSWORD, "next": "/rules/hadron/"},
    )
    assert response.url == "/rules/hadron/"


def test_log_out_needs_post(client, alice):
    client.force_login(alice)
    assert client.get(reverse("accounts:logout")).status_code == 405
    assert "_auth_user_id" in client.session
    response = client.post(reverse("accounts:logout"))
    assert response.status_code == 302
    assert "_auth_user_id" not in client.session
    assert "You are logged out." in messages_of(response)


def test_password_change_requires_login(client):
    response = client.get(reverse("accounts:password_change"), follow=True)
    assert response.redirect_chain[0][0].startswith(reverse("accounts:login") + "?next=")
    assert "Please log in to see that page." in messages_of(response)


def test_password_change_errors_and_success(client, alice):
    client.force_login(alice)
    url = reverse("accounts:password_change")
    wrong_old = client.post(
        url, {"old_password": "wrong", "new_password1": "fresh-meadow-31", "new_password2": "fresh-meadow-31"}
    )
    assert wrong_old.status_code == 200
    assert "Your old password was entered incorrectly" in wrong_old.content.decode()
    assert "Your password was not changed" in " ".join(messages_of(wrong_old))

    mismatch = client.post(
        url, {"old_password": PASSWORD, "new_password1": "fresh-meadow-31", "new_password2": "fresh-meadow-32"}
    )
    assert "The two password fields didn’t match." in mismatch.content.decode()

    done = client.post(
        url, {"old_password": PASSWORD, "new_password1": "fresh-meadow-31", "new_password2": "fresh-meadow-31"}
    )
    assert done.status_code == 302
    assert "Your password has been changed." in messages_of(done)
    alice.refresh_from_db()
    assert alice.check_password("fresh-meadow-31")
    # Still logged in: Django keeps the session valid after a password change.
    assert client.session["_auth_user_id"] == str(alice.pk)


def test_profile_shows_player(client, alice):
    response = client.get(reverse("accounts:profile", args=["alice"]))
    assert response.status_code == 200
    page = response.content.decode()
    assert "<h1>Alice</h1>" in page
    assert "Joined" in page
    assert "This is your public page" not in page
    client.force_login(alice)
    assert "This is your public page" in client.get("/u/Alice/").content.decode()


def test_profile_of_unknown_or_inactive_player_is_404(client, django_user_model):
    assert client.get("/u/nobody/").status_code == 404
    django_user_model.objects.create_user("ghost", password=PASSWORD, is_active=False)
    assert client.get("/u/ghost/").status_code == 404


def test_header_shows_account_links(client, alice):
    anonymous = client.get("/").content.decode()
    assert reverse("accounts:login") in anonymous and reverse("accounts:signup") in anonymous
    client.force_login(alice)
    page = client.get("/").content.decode()
    assert "/u/Alice/" in page
    # The password is changed from the settings page, which the header links to.
    assert reverse("accounts:settings") in page
    assert reverse("accounts:password_change") in client.get(reverse("accounts:settings")).content.decode()
    assert f'action="{reverse("accounts:logout")}"' in page


def test_logged_in_user_visiting_sign_up_goes_to_profile(client, alice):
    client.force_login(alice)
    response = client.get(reverse("accounts:signup"))
    assert response.url == "/u/Alice/"


def test_admin_is_for_staff_only(client, alice, django_user_model):
    client.force_login(alice)
    response = client.get("/admin/")
    assert response.status_code == 302 and "/admin/login/" in response.url
    staff = django_user_model.objects.create_superuser("root_admin", password=PASSWORD)
    client.force_login(staff)
    assert client.get("/admin/").status_code == 200
    users = client.get("/admin/auth/user/?q=ali")
    assert users.status_code == 200 and "Alice" in users.content.decode()


def test_adduser_command_applies_sign_up_rules(django_user_model):
    from django.core.management import CommandError, call_command

    call_command("adduser", "erin", "--password", PASSWORD)
    assert django_user_model.objects.get(username="erin").check_password(PASSWORD)
    with pytest.raises(CommandError, match="already taken"):
        call_command("adduser", "ERIN", "--password", PASSWORD)
    with pytest.raises(CommandError, match="3 to 20"):
        call_command("adduser", "x", "--password", PASSWORD)
