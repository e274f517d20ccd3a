"""Django's ASGI handler with its views' threads kept (tessera.handler): each request's view
runs on a thread of its own, as under Django's handler, but a thread left idle by an earlier
request is taken again instead of a new one started (with a new database connection)."""
import asyncio
import threading

from django.http import HttpResponse
from django.urls import path

from tessera.handler import KeptThreadsASGIHandler


async def asked(app, path):
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "GET", "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": b"", "headers": [(b"host", b"testserver")],
             "client": ("127.0.0.1", 5000), "server": ("testserver", 80)}
    sent, body = [], [{"type": "http.request", "body": b"", "more_body": False}]

    async def receive():
        if body:
            return body.pop()
        await asyncio.Event().wait()  # no disconnect: the handler stops listening itself

    async def send(message):
        sent.append(message)

    await app(scope, receive, send)
    return sent[0]["status"]


def view_threads(executor):
    return set(executor._threads)


def test_a_requests_view_runs_on_a_thread_left_by_an_earlier_one():
    app = KeptThreadsASGIHandler()

    async def one_after_another():
        assert await asked(app, "/rules/hadron/") == 200
        [first] = app.idle
        threads = view_threads(first)
        assert await asked(app, "/rules/hadron/") == 200
        assert app.idle == [first] and view_threads(first) == threads and len(threads) == 1
        assert all(thread.is_alive() for thread in threads)

    asyncio.run(one_after_another())


seen, both_in = set(), threading.Barrier(2, timeout=30)


def meeting(request):
    seen.add(threading.get_ident())
    both_in.wait()
    return HttpResponse("met")


urlpatterns = [path("meeting/", meeting)]


def test_requests_at_once_run_on_threads_of_their_own(settings):
    # Two views that can finish only together: on one shared thread they would wait forever.
    settings.ROOT_URLCONF = __name__
    app = KeptThreadsASGIHandler()

    async def at_once():
        return await asyncio.gather(asked(app, "/meeting/"), asked(app, "/meeting/"))

    assert asyncio.run(at_once()) == [200, 200]
    assert len(seen) == 2 and len(app.idle) == 2


class Where:
    """A middleware that notes the thread it runs on (settings.MIDDLEWARE's last, nearest the
    view, after django-axes' async-capable one)."""

    threads = []

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        Where.threads.append(("middleware", threading.get_ident()))
        return self.get_response(request)


def where(request):
    Where.threads.append(("view", threading.get_ident()))
    return HttpResponse("here")


def test_the_middleware_and_the_view_run_on_one_thread_entered_once(settings):
    # Django's async chain ran the async-capable middleware nearest the view on the event loop
    # under the sync-only ones on the thread: thread -> loop -> thread for every request.
    settings.ROOT_URLCONF = __name__
    settings.MIDDLEWARE = [*settings.MIDDLEWARE, f"{__name__}.Where"]
    urlpatterns.append(path("where/", where))
    app = KeptThreadsASGIHandler()
    assert not asyncio.iscoroutinefunction(app._middleware_chain)
    Where.threads.clear()
    assert asyncio.run(asked(app, "/where/")) == 200
    [(_, middleware), (_, view)] = Where.threads
    assert middleware == view != threading.get_ident()
