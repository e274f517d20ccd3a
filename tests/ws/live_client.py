"""A real client of a running server, for tests against Daphne processes: it logs in over HTTP
like a browser (urllib with a cookie jar, CSRF token from the form) and talks to the game
socket with the `websockets` library. No ORM here: the server has its own database."""
import asyncio
import base64
import http.cookiejar
import json
import os
import re
import socket
import urllib.parse
import urllib.request

from websockets.asyncio.client import connect

from tests.ws.messages import WAIT, MessageReader


class WebSession:
    """A browser's HTTP side, without the browser: a cookie jar, and the CSRF token taken from
    the log-in form (Django's CSRF cookie) for posts."""

    def __init__(self, server):
        self.server = server
        self.jar = http.cookiejar.CookieJar()
        # A server behind the tests' TLS proxy (tests/nginxsite.py) names the context that
        # trusts its certificate.
        context = getattr(server, "ssl_context", None)
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar),
                                                  urllib.request.HTTPSHandler(context=context))
        # As a browser on the site's pages: over https, Django's CSRF check wants the Referer.
        self.opener.addheaders.append(("Referer", server.url + "/"))

    def cookie(self, name):
        return next((c.value for c in self.jar if c.name == name), None)

    def log_in(self, username, password):
        """Log in through the form; returns the URL and text of the page it leads to."""
        url = self.server.url + "/accounts/login/"
        form = self.opener.open(url, timeout=WAIT).read().decode()
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)[1]
        data = urllib.parse.urlencode(
            {"csrfmiddlewaretoken": token, "username": username, "password": password}).encode()
        with self.opener.open(url, data, timeout=WAIT) as response:
            return response.geturl(), response.read().decode()

    def post_json(self, path, **data):
        """A fetch call of the site's pages: a form post answered with JSON."""
        request = urllib.request.Request(
            self.server.url + path, data=urllib.parse.urlencode(data).encode(),
            headers={"Accept": "application/json", "X-CSRFToken": self.cookie("csrftoken")})
        with self.opener.open(request, timeout=WAIT) as response:
            return json.loads(response.read())


def log_in(server, username, password):
    """The session cookie of `username` logged in on `server` through the log-in form."""
    session = WebSession(server)
    session.log_in(username, password)
    cookie = session.cookie("sessionid")
    assert cookie, f"{username} could not log in on {server.url}"
    return cookie


def snapshot_json(server, path):
    with urllib.request.urlopen(server.url + path + "snapshot.json", timeout=WAIT) as response:
        return json.loads(response.read())


class LiveSocket(MessageReader):
    """One browser tab on a game page of a running server (presence news is kept in
    .presence)."""

    background = ("presence", "sync")

    def __init__(self, server, path, session=None, name="anonymous"):
        self.server, self.path, self.session, self.name = server, path, session, name
        self.presence = None
        self.ws = None
        self.snapshot_ply = None

    async def connect(self):
        headers = {"Cookie": f"sessionid={self.session}"} if self.session else None
        self.ws = await connect(self.server.ws_url + "/ws" + self.path, origin=self.server.url,
                                additional_headers=headers, open_timeout=WAIT,
                                ssl=getattr(self.server, "ssl_context", None))

    async def open(self):
        await self.connect()
        game = (await self.expect("snapshot"))["game"]
        self.snapshot_ply = game["state"]["ply"]
        return game

    def seen(self, message):
        # A socket joins its game's group before its snapshot is read, so the news of an
        # action the snapshot already holds may follow it (with Redis, news that reached the
        # process's subscriber just after the join): a page passes over it ("seen",
        # static/js/live-game.js applyAction), and so does this tab.
        return (message["type"] == "action" and self.snapshot_ply is not None
                and message["ply"] < self.snapshot_ply)

    async def catch_up(self, actions, count, timeout=WAIT):
        """Keep `actions` (the game's actions as this tab knows them) until it holds `count`,
        as a page does (docs/protocol.md): the action of the next ply is added, one already
        held is passed over, and a gap is filled by asking for a snapshot. News of one game
        comes from several processes (a server, a jobs worker) and may arrive out of order:
        a computer's move published late by its worker came after the person's answer to it.
        One deadline for the whole wait: presence and keep-alives come every few seconds."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        asked = False
        while len(actions) < count:
            try:
                message = await self.receive(max(0, deadline - loop.time()))
            except TimeoutError:
                raise AssertionError(f"{self.name} heard {len(actions)} of {count} actions: "
                                     f"{actions}") from None
            behind = message.get("ply") is not None and message["ply"] > len(actions)
            if message["type"] == "action" and message["ply"] == len(actions):
                actions.append(message["action"])
            elif message["type"] == "snapshot":
                actions[:] = message["game"]["actions"]
                asked = False
            elif message["type"] in ("action", "sync") and behind and not asked:
                await self.send(type="snapshot")
                asked = True
        return actions

    async def send(self, **message):
        await self.ws.send(json.dumps(message))

    async def receive(self, timeout=WAIT):
        return json.loads(await asyncio.wait_for(self.ws.recv(), timeout))

    async def next_message(self, timeout):
        # Cancelling recv() loses nothing (websockets' asyncio client).
        try:
            return await self.receive(timeout)
        except TimeoutError:
            return None

    async def close(self):
        await self.ws.close()


class StalledSocket:
    """A game page's socket that stops reading (a frozen tab, a load generator whose readers
    were stopped): a plain TCP client with a small receive buffer that reads its handshake
    and nothing after it, so what the server sends it piles up in the server's buffers. Its
    frames go out in one write each (`send(*frames)`), in the order given."""

    def __init__(self, server, path, session=None):
        self.server, self.path, self.session = server, path, session
        self.sock = None

    def open(self):
        address = urllib.parse.urlsplit(self.server.ws_url)
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        self.sock.settimeout(WAIT)
        self.sock.connect((address.hostname, address.port))
        cookie = f"Cookie: sessionid={self.session}\r\n" if self.session else ""
        self.sock.sendall((
            f"GET /ws{self.path} HTTP/1.1\r\nHost: {address.netloc}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Key: {base64.b64encode(os.urandom(16)).decode()}\r\n"
            f"Origin: {self.server.url}\r\n{cookie}\r\n").encode())
        head = b""
        while not head.endswith(b"\r\n\r\n"):   # a byte at a time: nothing past the head
            byte = self.sock.recv(1)
            assert byte, f"the server closed the handshake: {head!r}"
            head += byte
        assert head.startswith(b"HTTP/1.1 101"), head
        return self

    @staticmethod
    def message(**message):
        return frame(0x1, json.dumps(message).encode())

    @staticmethod
    def closing(code=1000):
        return frame(0x8, code.to_bytes(2, "big"))

    def send(self, *frames):
        self.sock.sendall(b"".join(frames))

    def drop(self):
        """Gone without a word: closed with data unread, the kernel resets the connection."""
        self.sock.close()


def frame(opcode, payload):
    """One final, masked client frame (RFC 6455 5.2)."""
    mask = os.urandom(4)
    size = len(payload)
    if size < 126:
        length = bytes([0x80 | size])
    elif size < 2 ** 16:
        length = bytes([0x80 | 126]) + size.to_bytes(2, "big")
    else:
        length = bytes([0x80 | 127]) + size.to_bytes(8, "big")
    masked = bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))
    return bytes([0x80 | opcode]) + length + mask + masked


async def open_and_make_the_first_move(mover, *others, action="c3"):
    """Opens the game page's tabs, `mover` player 0's, and plays player 0's `action`; returns
    once every tab has heard it (player 1's turn has begun)."""
    tabs = (mover, *others)
    for tab in tabs:
        await tab.open()
    await mover.send(type="play", ply=0, action=action)
    for tab in tabs:
        await tab.expect("action")
