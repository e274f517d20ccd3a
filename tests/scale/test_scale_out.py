"""Two Daphne processes share the PostgreSQL database and Redis: either one serves any player."""
import urllib.request

import pytest

from tests.ws.live_client import WebSession
from tests.ws.messages import WAIT

pytestmark = pytest.mark.scale

PASSWORD = "scale-out-pass-9137"


def test_both_servers_run_on_postgresql_and_redis(scale_servers):
    for server in scale_servers:
        settings = server.shell(
            "from django.conf import settings as s;"
            "print(s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'])"
        ).split()
        assert settings == ["django.db.backends.postgresql", "live.layers.RedisNewsLayer"]


def test_both_servers_serve_pages(scale_servers):
    for server in scale_servers:
        for path in ["/", "/rules/", "/rules/tripen/", "/static/css/site.css"]:
            with urllib.request.urlopen(server.url + path, timeout=WAIT) as response:
                assert response.status == 200


def test_a_user_created_on_one_server_logs_in_on_both(scale_servers):
    first, second = scale_servers
    first.create_user("scaler", PASSWORD)
    for server in scale_servers:
        url, page = WebSession(server).log_in("scaler", PASSWORD)
        assert url == server.url + "/"
        assert "Welcome back, scaler." in page


def test_a_session_started_on_one_server_is_valid_on_the_other(scale_servers):
    first, second = scale_servers
    first.create_user("roamer", PASSWORD)
    on_first = WebSession(first)
    on_first.log_in("roamer", PASSWORD)
    # The same cookie (as behind one proxy host): the session lives in the shared database.
    cookie = f"sessionid={on_first.cookie('sessionid')}"
    request = urllib.request.Request(second.url + "/accounts/password/",
                                     headers={"Cookie": cookie})
    with urllib.request.urlopen(request, timeout=WAIT) as response:
        assert response.geturl() == second.url + "/accounts/password/"
        assert 'href="/u/roamer/"' in response.read().decode()
