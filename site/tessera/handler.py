"""Django's ASGI handler, with the threads its synchronous views run in kept between requests.

Django's own handler gives every request a thread-sensitive context of its own (asgiref's
ThreadSensitiveContext), and with it a new thread for the request's view, which opens a new
database connection (persistent connections are kept per thread: CONN_MAX_AGE) and drops both
when the request ends. Every page paid for starting a thread and connecting to the database
(with SQLite, Django's functions registered on each new connection): under the pages' load
(bench/pages_load.py) a sizeable part of a page's CPU, and nothing of the plain view's, which
reads no database.

Here each request still has a thread-sensitive context of its own, so a slow view never holds
another up, as Django means it; but its thread is taken from those left idle by earlier
requests (asgiref's ThreadSensitiveContext(executor=...): the caller owns the executor) and
given back after, with its database connection, which Django's request signals keep or close
like any persistent connection (CONN_MAX_AGE, health checks).
"""
from concurrent.futures import ThreadPoolExecutor

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.db import connections

# Idle threads kept for the next requests; more start when more requests run at once, and
# those beyond this many end after their request.
KEPT = 8


class KeptThreadsASGIHandler(ASGIHandler):
    def __init__(self):
        super().__init__()
        self.idle = []

    def load_middleware(self, is_async=False):
        # The middleware chain as under WSGI: every middleware and the view on the request's
        # thread, entered once from the event loop (get_response_async). Django's async chain
        # ran the async-capable middleware nearest the view (messages, clickjacking, axes) on
        # the loop, under the sync-only ones (ops, api, ...) on the thread: each request went
        # thread -> loop -> thread and back, two more hops than the one it needs (about a
        # fifth of a cheap page's CPU through Daphne, mostly waking the loop).
        super().load_middleware(is_async=False)

    async def get_response_async(self, request):
        return await sync_to_async(self.get_response, thread_sensitive=True)(request)

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        # One call at a time on one thread, as ThreadSensitiveContext asks of an executor.
        executor = (self.idle.pop() if self.idle
                    else ThreadPoolExecutor(max_workers=1, thread_name_prefix="view"))
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            if len(self.idle) < KEPT:
                # A view cancelled with its request (the client went away) may still run
                # there: the next request's view waits for it on that thread.
                self.idle.append(executor)
            else:
                # Its thread ends: its persistent connection would stay open on the database
                # server until the garbage collector came by (at 200 games through two
                # processes PostgreSQL ran out of connections and pages answered 500).
                executor.submit(connections.close_all)
                executor.shutdown(wait=False)


def get_asgi_application():
    """django.core.asgi.get_asgi_application(), with the threads kept."""
    import django
    django.setup(set_prefix=False)
    return KeptThreadsASGIHandler()
