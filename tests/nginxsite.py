"""deploy/nginx-tessera.conf run by the tests, as deployed: nginx itself (Debian's package,
.ci/run installs it) in front of Daphne processes, with a self-signed certificate the test makes,
its own prefix, pid and log files in a temporary directory, and free ports. Only the paths,
addresses and ports of the deployed file are replaced; everything else is tested as written.
Test modules import from here (`from nginxsite import NginxSite, needs_nginx, ...`)."""
import re
import shutil
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from siteservers import ROOT, die_with_parent, free_port
from tlsproxy import self_signed

DEPLOY = ROOT / "deploy"
NGINX = shutil.which("nginx") or (Path("/usr/sbin/nginx") if Path("/usr/sbin/nginx").exists()
                                  else None)
needs_nginx = pytest.mark.skipif(NGINX is None, reason="nginx is not installed "
                                 "(apt-get install nginx; .ci/run does)")
# Which Daphne process nginx handed a request (or a websocket's upgrade) to: a response header
# the tests' http{} block adds, so a test can tell its sockets apart. Not in the deployed file.
UPSTREAM_HEADER = "X-Test-Upstream"
# Connections nginx's one worker holds at once: each websocket holds two (the client's and the
# upstream's). At 256, bench/failures.py's 200 games (400 sockets) got 500 from nginx itself
# ("worker_connections are not enough") for most reconnects (docs/operations.md).
WORKER_CONNECTIONS = 4096
# The settings a Daphne process behind the proxy needs (docs/operations.md, tessera.env.example).
BEHIND_NGINX = dict(TRUSTED_PROXY_COUNT="1", SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto")


def nginx_prefix(directory, upstream_ports, https_port, http_port):
    """deploy/nginx-tessera.conf made runnable without root: its own prefix, a self-signed
    certificate, free ports, this checkout's static files; everything else as written."""
    key, cert = self_signed(directory)
    site = (DEPLOY / "nginx-tessera.conf").read_text()
    site = site.replace("/etc/letsencrypt/live/tessera.example/fullchain.pem", str(cert))
    site = site.replace("/etc/letsencrypt/live/tessera.example/privkey.pem", str(key))
    site = site.replace("/srv/tessera/static/", str(ROOT / "static") + "/")
    site = site.replace("127.0.0.1:8001", f"127.0.0.1:{upstream_ports[0]}")
    site = site.replace("127.0.0.1:8002", f"127.0.0.1:{upstream_ports[1]}")
    site = re.sub(r"listen 443 ", f"listen 127.0.0.1:{https_port} ", site)
    site = re.sub(r"listen 80;", f"listen 127.0.0.1:{http_port};", site)
    site = re.sub(r"\s*listen \[::\]:\d+[^;]*;", "", site)
    site = site.replace("return 301 https://$host$request_uri;",
                        f"return 301 https://$host:{https_port}$request_uri;")
    (directory / "site.conf").write_text(site)
    temp = directory / "temp"
    temp.mkdir()
    (directory / "nginx.conf").write_text(f"""
daemon off;
pid {directory / 'nginx.pid'};
error_log {directory / 'error.log'} info;
events {{ worker_connections {WORKER_CONNECTIONS}; }}
http {{
    access_log {directory / 'access.log'};
    client_body_temp_path {temp}/body; proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi; uwsgi_temp_path {temp}/uwsgi; scgi_temp_path {temp}/scgi;
    add_header {UPSTREAM_HEADER} $upstream_addr always;
    include /etc/nginx/mime.types;
    include {directory / 'site.conf'};
}}
""")
    return directory / "nginx.conf"


def nginx(conf, *args):
    return [str(NGINX), "-p", str(conf.parent), "-c", str(conf), "-e", "stderr", *args]


def fetch(url, context, headers=None):
    """(status, text) of a GET, error statuses included."""
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=20, context=context) as response:
            return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")


class NginxSite:
    """nginx in front of two Daphne processes (SiteServers), as a non-daemon child process.
    It quacks like a SiteServer for the tests' clients (tests/ws/live_client.py): `url` and
    `ws_url` are https:// and wss://, and `ssl_context` trusts the test's certificate."""

    def __init__(self, directory, servers):
        self.directory = Path(directory)
        self.servers = servers
        self.https_port, self.http_port = free_port(), free_port()
        self.conf = nginx_prefix(self.directory, [s.port for s in servers],
                                 self.https_port, self.http_port)
        self.url = f"https://127.0.0.1:{self.https_port}"
        self.ws_url = f"wss://127.0.0.1:{self.https_port}"
        self.ssl_context = ssl.create_default_context(cafile=str(self.directory / "cert.pem"))
        self.process = None

    def upstream_of(self, server):
        return f"127.0.0.1:{server.port}"

    def start(self, timeout=20):
        self.process = subprocess.Popen(nginx(self.conf), stderr=subprocess.DEVNULL,
                                        preexec_fn=die_with_parent)
        deadline, answer = time.monotonic() + timeout, None
        while answer != 200:
            assert time.monotonic() < deadline and self.process.poll() is None, \
                f"nginx answers {answer}: {self.error_log()[-2000:]}"
            try:
                answer = fetch(self.url + "/healthz", self.ssl_context)[0]
            except (urllib.error.URLError, OSError) as error:
                answer = error
            time.sleep(0.2)
        return self

    def error_log(self):
        path = self.directory / "error.log"
        return path.read_text() if path.exists() else ""

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=20)
