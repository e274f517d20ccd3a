"""Log lines (ops.logs): JSON objects with the process, user and game ids on request, and no
password, session key or reset token in any line, even with every logger at DEBUG."""
import io
import json
import logging
import logging.config
import os

import pytest
from django.conf import settings as django_settings

from ops.logs import settings_logging

PASSWORD, WRONG, NEW = "first-pass-phrase-7731", "not-the-pass-phrase-1190", "second-phrase-4417"


@pytest.fixture
def log_lines(settings):
    """Everything every logger writes, at DEBUG and with DEBUG on (Django then logs each SQL
    statement with its parameters, unless told not to), through the site's JSON formatter."""
    settings.DEBUG = True
    logging.config.dictConfig(settings_logging("json", "DEBUG"))
    buffer = io.StringIO()
    logging.getLogger().handlers[0].setStream(buffer)
    try:
        yield buffer
    finally:
        logging.config.dictConfig(django_settings.LOGGING)


@pytest.mark.django_db
def test_no_password_or_session_key_in_any_log_line(client, django_user_model, log_lines):
    user = django_user_model.objects.create_user("liam", password=PASSWORD)
    assert client.post("/accounts/login/", {"username": "liam", "password": WRONG}).status_code == 200
    assert client.post("/accounts/login/", {"username": "liam", "password": PASSWORD}).status_code == 302
    session_key = client.cookies["sessionid"].value
    response = client.post("/accounts/password/", {"old_password": PASSWORD, "new_password1": NEW,
                                                   "new_password2": NEW})
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password(NEW)
    client.get(f"/game/999999/")  # a warning with the user's id
    text = log_lines.getvalue()
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines, "something was logged"
    for secret in (PASSWORD, WRONG, NEW, session_key, user.password):
        assert secret not in text
    not_found = [line for line in lines if line["message"].startswith("Not Found: /game/")]
    assert not_found and not_found[-1]["user_id"] == user.pk
    assert not_found[-1]["game_id"] == 999999
    assert all(line["pid"] == os.getpid() for line in lines)


@pytest.mark.django_db
def test_a_password_reset_token_never_reaches_a_log_line(client, log_lines):
    client.get("/accounts/password/reset/MQ/secret-token-abc123/no-such/")
    text = log_lines.getvalue()
    assert "Not Found" in text and "secret-token-abc123" not in text
