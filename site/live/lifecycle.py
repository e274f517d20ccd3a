"""Starting and stopping this process's background work (live.process) with the server.

Daphne speaks no ASGI lifespan, so under Daphne the work starts when Twisted's reactor starts
running and stops before it shuts down (SIGTERM included); under a server that does send
lifespan events (uvicorn, hypercorn) they are used. Code that calls the application without a
server (Channels' test communicator) starts nothing.
"""
import asyncio
import sys

from live import process


class ServerLifecycle:
    def __init__(self, application):
        self.application = application

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            return await self.lifespan(receive, send)
        return await self.application(scope, receive, send)

    async def lifespan(self, receive, send):
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                process.start()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await process.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return


def serve_when_running():
    """Under Daphne: start with the reactor, stop (within a few seconds) before it stops."""
    if "daphne.server" not in sys.modules:
        return
    from twisted.internet import defer, reactor

    def begin():
        process.start(asyncio.get_event_loop())

    def end():
        return defer.Deferred.fromFuture(process.stop())

    reactor.callWhenRunning(begin)
    reactor.addSystemEventTrigger("before", "shutdown", end)
