"""deploy/: nginx's own check of the site configuration, the site served through it (TLS,
websockets, two Daphne processes, /metrics kept private), and the systemd units and environment
example kept in step with the settings. Needs nginx (Debian's package, .ci/run installs it);
without it the nginx tests are skipped, saying so."""
import asyncio
import configparser
import json
import re
import ssl
import subprocess
import time
import urllib.error
import urllib.request

import pytest
import websockets

from nginxsite import DEPLOY, fetch, needs_nginx, nginx, nginx_prefix
from siteservers import ROOT, die_with_parent, free_port

TOKEN = "deploy-test-metrics-token"


@needs_nginx
def test_nginx_accepts_the_site_configuration(tmp_path):
    conf = nginx_prefix(tmp_path, (free_port(), free_port()), free_port(), free_port())
    result = subprocess.run(nginx(conf, "-t"), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "test is successful" in result.stderr


@needs_nginx
def test_the_site_through_nginx_with_two_daphne_processes(tmp_path, site_servers):
    database = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    proxied = dict(TRUSTED_PROXY_COUNT="1", SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto",
                   METRICS_TOKEN=TOKEN)
    first = site_servers(database, **proxied)
    second = site_servers(database, migrate_first=False, **proxied)
    https_port, http_port = free_port(), free_port()
    conf = nginx_prefix(tmp_path, (first.port, second.port), https_port, http_port)
    proxy = subprocess.Popen(nginx(conf), stderr=subprocess.DEVNULL, preexec_fn=die_with_parent)
    context = ssl.create_default_context(cafile=str(tmp_path / "cert.pem"))
    base = f"https://127.0.0.1:{https_port}"
    try:
        deadline, answer = time.monotonic() + 20, None
        while answer != 200:
            assert time.monotonic() < deadline and proxy.poll() is None, \
                f"nginx answers {answer}: {(tmp_path / 'error.log').read_text()[-2000:]}"
            try:
                answer = fetch(base + "/healthz", context)[0]
            except (urllib.error.URLError, OSError) as error:
                answer = error
            time.sleep(0.2)
        assert fetch(base + "/readyz", context)[0] == 200
        status, page = fetch(base + "/", context)
        assert status == 200 and "Tessera" in page
        assert fetch(base + "/static/css/site.css", context)[0] == 200
        # Private behind the proxy, even with the token; each process answers on its own port.
        assert fetch(base + "/metrics", context, {"Authorization": f"Bearer {TOKEN}"})[0] == 404
        for _ in range(6):
            assert fetch(base + "/no-such-page/", context)[0] == 404
        per_process = []
        for server in (first, second):
            status, text = fetch(server.url + "/metrics", None,
                                 {"Authorization": f"Bearer {TOKEN}"})
            assert status == 200
            found = re.search(r'tessera_http_errors_total\{status="404"\} (\S+)', text)
            per_process.append(float(found[1]) if found else 0)
        assert sum(per_process) == 6 and all(per_process), "both processes take requests"
        # Plain HTTP is sent to HTTPS.
        with pytest.raises(urllib.error.HTTPError) as redirect:
            opener = urllib.request.build_opener(NoRedirect)
            opener.open(f"http://127.0.0.1:{http_port}/play/", timeout=20)
        assert redirect.value.code == 301
        assert redirect.value.headers["Location"] == f"https://127.0.0.1:{https_port}/play/"

        async def watch_socket():
            async with websockets.connect(f"wss://127.0.0.1:{https_port}/ws/watch/", ssl=context,
                                          origin=base) as socket:
                return json.loads(await asyncio.wait_for(socket.recv(), 20))
        assert "type" in asyncio.run(watch_socket())
    finally:
        proxy.terminate()
        proxy.wait(timeout=20)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def unit(name):
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read_string((DEPLOY / name).read_text())
    return parser


def test_the_systemd_units_start_what_the_readme_starts():
    web, worker = unit("tessera@.service"), unit("tessera-worker@.service")
    assert "daphne -b 127.0.0.1 -p %i tessera.asgi:application" in web["Service"]["ExecStart"]
    assert worker["Service"]["ExecStart"].endswith("python manage.py jobs_worker")
    for service in (web, worker):
        assert service["Service"]["EnvironmentFile"] == "/etc/tessera/tessera.env"
        assert service["Service"]["Environment"].startswith("PYTHONPATH=")
        assert service["Service"]["KillSignal"] == "SIGTERM"
        assert service["Install"]["WantedBy"] == "multi-user.target"
    readme = (ROOT / "README.md").read_text()
    assert "tessera.asgi:application" in readme and "manage.py jobs_worker" in readme


def test_the_environment_example_names_only_settings_that_exist():
    settings_text = (ROOT / "site" / "tessera" / "settings.py").read_text()
    names = [line.split("=", 1)[0].lstrip("# ").strip()
             for line in (DEPLOY / "tessera.env.example").read_text().splitlines()
             if "=" in line and re.match(r"#? ?[A-Z_]+=", line)]
    assert "SECRET_KEY" in names and "DATABASE_URL" in names
    for name in names:  # each is described in settings.py's docstring, read there
        assert re.search(rf"\b{name}\b", settings_text), f"settings.py knows no {name}"
