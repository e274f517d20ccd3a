"""Two Daphne processes share the PostgreSQL database and Redis: either one serves any player."""
import http.cookiejar
import re
import urllib.parse
import urllib.request

PASSWORD = "scale-out-pass-9137"


def browser_session():
    return urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))


def log_in(opener, server, username):
    form = opener.open(server.url + "/accounts/login/").read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)[1]
    data = urllib.parse.urlencode(
        {"csrfmiddlewaretoken": token, "username": username, "password": PASSWORD}
    ).encode()
    with opener.open(server.url + "/accounts/login/", data) as response:
        return response.geturl(), response.read().decode()


def test_both_servers_run_on_postgresql_and_redis(scale_servers):
    for server in scale_servers:
        settings = server.shell(
            "from django.conf import settings as s;"
            "print(s.DATABASES['default']['ENGINE'], s.CHANNEL_LAYERS['default']['BACKEND'])"
        ).split()
        assert settings == ["django.db.backends.postgresql", "channels_redis.core.RedisChannelLayer"]


def test_both_servers_serve_pages(scale_servers):
    for server in scale_servers:
        for path in ["/", "/rules/", "/rules/tripen/", "/static/css/site.css"]:
            with urllib.request.urlopen(server.url + path) as response:
                assert response.status == 200


def test_a_user_created_on_one_server_logs_in_on_both(scale_servers):
    first, second = scale_servers
    first.create_user("scaler", PASSWORD)
    for server in scale_servers:
        url, page = log_in(browser_session(), server, "scaler")
        assert url == server.url + "/"
        assert "Welcome back, scaler." in page


def test_a_session_started_on_one_server_is_valid_on_the_other(scale_servers):
    first, second = scale_servers
    first.create_user("roamer", PASSWORD)
    opener = browser_session()
    log_in(opener, first, "roamer")
    # Same cookie jar (as behind one proxy host): the session lives in the shared database.
    jar = next(h.cookiejar for h in opener.handlers if isinstance(h, urllib.request.HTTPCookieProcessor))
    session = next(c for c in jar if c.name == "sessionid")
    request = urllib.request.Request(second.url + "/accounts/password/",
                                     headers={"Cookie": f"sessionid={session.value}"})
    with urllib.request.urlopen(request) as response:
        assert response.geturl() == second.url + "/accounts/password/"
        assert 'href="/u/roamer/"' in response.read().decode()
