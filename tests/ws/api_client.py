"""A test client for the HTTP API on a real server: JSON calls with a token, and NDJSON streams
read line by line with a deadline (never a read that can hang the run)."""
import http.client
import json
import socket
import time
from urllib.parse import urlsplit

READ_TIMEOUT = 0.5  # one blocking read on a stream, at most


class Api:
    def __init__(self, server, token):
        parts = urlsplit(server.url)
        self.host, self.port, self.token = parts.hostname, parts.port, token

    def call(self, method, path, body=None):
        """(status, JSON answer)."""
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            headers = {"Authorization": f"Bearer {self.token}"}
            data = None
            if body is not None:
                data = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"
            connection.request(method, "/api/v1" + path, body=data, headers=headers)
            answer = connection.getresponse()
            return answer.status, json.loads(answer.read() or b"null")
        finally:
            connection.close()

    def ok(self, method, path, body=None):
        status, answer = self.call(method, path, body)
        assert status in (200, 201), (status, answer)
        return answer

    def stream(self, path):
        return Stream(self, path)


class Stream:
    """An open NDJSON stream over a plain socket (http.client's reader cannot go on after a
    read times out). `next(deadline_s)`: the next JSON line (empty keep-alive lines are counted
    in `keep_alives`), None at the end of the stream; AssertionError past the deadline."""

    def __init__(self, api, path):
        self.sock = socket.create_connection((api.host, api.port), timeout=10)
        self.sock.sendall((f"GET /api/v1{path} HTTP/1.1\r\nHost: {api.host}:{api.port}\r\n"
                           f"Authorization: Bearer {api.token}\r\nConnection: close\r\n\r\n")
                          .encode())
        self.sock.settimeout(READ_TIMEOUT)
        self.raw = b""  # bytes received, not yet taken apart
        self.body = b""  # the body so far, chunk framing removed
        self.ended = False
        head = self._until_in_raw(b"\r\n\r\n", time.monotonic() + 10)
        lines = head.decode("latin1").split("\r\n")
        self.status = int(lines[0].split()[1])
        self.headers = {k.strip().lower(): v.strip()
                        for k, v in (line.split(":", 1) for line in lines[1:] if ":" in line)}
        self.content_type = self.headers.get("content-type")
        self.chunked = self.headers.get("transfer-encoding", "").lower() == "chunked"
        self.keep_alives = 0

    def _receive(self, deadline):
        while time.monotonic() < deadline:
            try:
                data = self.sock.recv(65536)
            except (socket.timeout, TimeoutError):
                continue
            if not data:
                self.ended = True
            return data
        raise AssertionError("nothing came within the deadline")

    def _until_in_raw(self, marker, deadline):
        while marker not in self.raw:
            data = self._receive(deadline)
            if not data:
                raise AssertionError(f"the connection ended before {marker!r}")
            self.raw += data
        found, self.raw = self.raw.split(marker, 1)
        return found

    def _unframe(self):
        """Move whole chunks from `raw` to `body`."""
        if not self.chunked:
            self.body, self.raw = self.body + self.raw, b""
            return
        while b"\r\n" in self.raw:
            size_line, rest = self.raw.split(b"\r\n", 1)
            size = int(size_line.split(b";")[0], 16)
            if size == 0:
                self.ended, self.raw = True, b""
                return
            if len(rest) < size + 2:
                return
            self.body, self.raw = self.body + rest[:size], rest[size + 2:]

    def next(self, deadline_s=10.0, keep_alive=False):
        """The next line's JSON; with `keep_alive`, an empty line too (as "")."""
        deadline = time.monotonic() + deadline_s
        while True:
            self._unframe()
            while b"\n" in self.body:
                text, self.body = self.body.split(b"\n", 1)
                if text.strip():
                    return json.loads(text)
                self.keep_alives += 1
                if keep_alive:
                    return ""
            if self.ended:
                return None
            if time.monotonic() >= deadline:
                raise AssertionError(f"no line within {deadline_s} s")
            self.raw += self._receive(deadline)

    def until(self, wanted, deadline_s=10.0):
        """Lines until one for which `wanted(line)` is true; that one."""
        deadline = time.monotonic() + deadline_s
        seen = []
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"the line did not come; these did: {seen}"
            try:
                found = self.next(left)
            except AssertionError:
                raise AssertionError(f"the line did not come; these did: {seen}") from None
            assert found is not None, f"the stream ended first, after {seen}"
            if wanted(found):
                return found
            seen.append(found)

    def close(self):
        self.sock.close()
