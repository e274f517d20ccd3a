"""A TLS-terminating reverse proxy for tests: the site as production runs it, behind a proxy
that speaks HTTPS and WSS to browsers and plain HTTP and WS to Daphne.

Like a production proxy, it sets X-Forwarded-Proto: https on every request (overwriting what
the client sent), appends the client's address to X-Forwarded-For, and passes websocket
upgrades through. It runs an asyncio loop in a thread of its own, so it works beside
Playwright's sync API. Certificates are self-signed for localhost and 127.0.0.1 (tests trust
`ssl_context()`, or tell Chromium to ignore the certificate).
"""
import asyncio
import datetime
import ipaddress
import ssl
import tempfile
import threading
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

HEAD_END = b"\r\n\r\n"
REWRITTEN = {b"x-forwarded-proto", b"x-forwarded-for"}


def self_signed(directory):
    """A key and certificate for localhost / 127.0.0.1 in `directory`; returns both paths."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.SubjectAlternativeName([
            x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_path, cert_path = Path(directory, "key.pem"), Path(directory, "cert.pem")
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    cert_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return key_path, cert_path


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


def forwarded_head(head, client):
    """The request head with the proxy's own X-Forwarded-Proto and X-Forwarded-For."""
    request_line, *headers = head[:-len(HEAD_END)].split(b"\r\n")
    forwarded_for = [value.strip() for name, _, value in (h.partition(b":") for h in headers)
                     if name.strip().lower() == b"x-forwarded-for"]
    kept = [h for h in headers if h.partition(b":")[0].strip().lower() not in REWRITTEN]
    chain = b", ".join([*forwarded_for, client.encode()])
    return b"\r\n".join([request_line, *kept, b"X-Forwarded-Proto: https",
                         b"X-Forwarded-For: " + chain]) + HEAD_END


def header(head, wanted):
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == wanted:
            return value.strip()
    return b""


class TLSProxy:
    """`TLSProxy(backend_port).start()`; `url`, `ws_url`, `ssl_context()`, `stop()`."""

    def __init__(self, backend_port):
        self.backend_port = backend_port
        self.directory = tempfile.mkdtemp(prefix="tessera-tls-")
        self.key, self.cert = self_signed(self.directory)
        self.loop = asyncio.new_event_loop()
        self.port = None

    @property
    def url(self):
        return f"https://localhost:{self.port}"

    @property
    def ws_url(self):
        return f"wss://localhost:{self.port}"

    def ssl_context(self):
        """A client context that trusts the proxy's certificate."""
        return ssl.create_default_context(cafile=str(self.cert))

    def start(self):
        started = threading.Event()
        threading.Thread(target=self._run, args=(started,), daemon=True).start()
        started.wait(10)
        return self

    def stop(self):
        self.loop.call_soon_threadsafe(self.loop.stop)

    def _run(self, started):
        asyncio.set_event_loop(self.loop)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert, self.key)
        server = self.loop.run_until_complete(
            asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=context))
        self.port = server.sockets[0].getsockname()[1]
        started.set()
        self.loop.run_forever()

    async def _serve(self, reader, writer):
        client = writer.get_extra_info("peername")[0]
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.backend_port)
        except OSError:
            writer.close()
            return
        answers = asyncio.ensure_future(pipe(up_reader, writer))
        try:
            while True:  # one request after another on a kept-alive connection
                head = await reader.readuntil(HEAD_END)
                up_writer.write(forwarded_head(head, client))
                if header(head, b"upgrade").lower() == b"websocket":
                    await pipe(reader, up_writer)  # from here on, websocket frames
                    break
                length = int(header(head, b"content-length") or 0)
                if length:
                    up_writer.write(await reader.readexactly(length))
                await up_writer.drain()
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError,
                ssl.SSLError):
            pass
        finally:
            up_writer.close()
            await answers
