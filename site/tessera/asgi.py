"""ASGI entry point: HTTP through Django, websockets through Channels.

Run from the repository root with site/ on the import path, e.g.

    PYTHONPATH=site daphne -b 127.0.0.1 -p 8000 tessera.asgi:application

site/ is a source root, not a package (the standard library's `site` module shadows that
name), so `tessera` is only importable once site/ is on sys.path: daphne can't do that for us
(its --root-path is the URL prefix, not an import path) and this module can't do it before it
is itself imported, hence PYTHONPATH. Daphne adds the current directory (the repository root)
to sys.path itself, which makes the engine package `games` importable; we add the root here
too so that starting daphne from another directory still finds it.
"""
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
for path in (ROOT / "site", ROOT):
    if str(path) not in sys.path:
        sys.path.append(str(path))

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tessera.settings")

if os.environ.get("LIVE_PROFILE"):
    # A benchmark's profile of this process, before anything starts a thread (live.profiling).
    from live import profiling

    profiling.start(os.environ["LIVE_PROFILE"])
if os.environ.get("LIVE_TRACE"):
    # A benchmark's record of where each change waited (live.tracing).
    from live import tracing

    tracing.start(os.environ["LIVE_TRACE"])

from tessera.handler import get_asgi_application  # noqa: E402

# Set up Django (apps, models) before importing consumers that use the ORM. Django's handler,
# with the threads that run its views kept between requests (tessera.handler).
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from api.door import ActionDoor  # noqa: E402
from live import admission, autobahn_logs, daphne_checks, http_log  # noqa: E402
from live.auth import SessionAuthMiddleware  # noqa: E402
from live.lifecycle import ServerLifecycle, serve_when_running  # noqa: E402
from ops import context, metrics  # noqa: E402
from tessera import routing  # noqa: E402
from tessera.origins import SameOriginValidator  # noqa: E402

application = ServerLifecycle(ProtocolTypeRouter(
    {
        # The API's game actions made with a token take a short way in (api.door).
        "http": ActionDoor(django_asgi_app, answered=metrics.http_answered,
                           started=context.request_started),
        "websocket": admission.Handshakes(SameOriginValidator(
            SessionAuthMiddleware(URLRouter(routing.websocket_urlpatterns))
        )),
    }
))
serve_when_running()
# Autobahn's debug lines drawn only when written: not on every frame and handshake.
autobahn_logs.defer()
# A crowd of connections let in (and their ends taken) a few per turn of the loop.
admission.pace()
# Daphne's check of its connections (timeouts, pings) a slice at a time, not all every 2 s.
daphne_checks.spread()
# Twisted's access line for each HTTP request not drawn where Daphne sends it nowhere, nor
# a POST's form parsed for Daphne, which never reads it.
http_log.quiet()
http_log.unparsed_forms()
