"""A real client of a running server, for tests against Daphne processes: it logs in over HTTP
like a browser (urllib with a cookie jar, CSRF token from the form) and talks to the game
socket with the `websockets` library. No ORM here: the server has its own database."""
import asyncio
import http.cookiejar
import json
import re
import urllib.parse
import urllib.request

from websockets.asyncio.client import connect

WAIT = 10  # seconds; a shared machine, real processes


def log_in(server, username, password):
    """The session cookie of `username` logged in on `server` through the log-in form."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    form = opener.open(server.url + "/accounts/login/", timeout=WAIT).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)[1]
    data = urllib.parse.urlencode(
        {"csrfmiddlewaretoken": token, "username": username, "password": password}).encode()
    opener.open(server.url + "/accounts/login/", data, timeout=WAIT).read()
    session = next((c.value for c in jar if c.name == "sessionid"), None)
    assert session, f"{username} could not log in on {server.url}"
    return session


def snapshot_json(server, path):
    with urllib.request.urlopen(server.url + path + "snapshot.json", timeout=WAIT) as response:
        return json.loads(response.read())


class LiveSocket:
    """One browser tab on a game page of a running server."""

    def __init__(self, server, path, session=None, name="anonymous"):
        self.server, self.path, self.session, self.name = server, path, session, name
        self.presence = None
        self.ws = None

    async def open(self):
        headers = {"Cookie": f"sessionid={self.session}"} if self.session else None
        self.ws = await connect(self.server.ws_url + "/ws" + self.path, origin=self.server.url,
                                additional_headers=headers, open_timeout=WAIT)
        return (await self.expect("snapshot"))["game"]

    async def send(self, **message):
        await self.ws.send(json.dumps(message))

    async def receive(self, timeout=WAIT):
        return json.loads(await asyncio.wait_for(self.ws.recv(), timeout))

    async def expect(self, kind, timeout=WAIT):
        """The next message other than presence news (remembered in .presence)."""
        while True:
            message = await self.receive(timeout)
            if message["type"] == "presence" and kind != "presence":
                self.presence = message
                continue
            assert message["type"] == kind, f"{self.name} expected {kind}, got {message}"
            return message

    async def error(self, code):
        message = await self.expect("error")
        assert message["code"] == code, f"{self.name} expected {code}, got {message}"
        return message

    async def drain(self, timeout=0.5):
        """Every message other than presence news until nothing comes for `timeout`."""
        messages = []
        while True:
            try:
                message = await self.receive(timeout)
            except TimeoutError:
                return messages
            if message["type"] == "presence":
                self.presence = message
            else:
                messages.append(message)

    async def quiet(self, timeout=0.3):
        extra = await self.drain(timeout)
        assert not extra, f"{self.name} got unexpected {extra}"

    async def close(self):
        await self.ws.close()
