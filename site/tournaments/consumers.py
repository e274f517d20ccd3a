"""An event page's socket, /ws/tournament/<id>/: a push channel of the standings.

Server -> client (JSON): `standings` {`status`, `rows`} when the socket opens and after each
change (a game started or ended, a player joined, withdrew or paused, the event started or
ended), at most once a second per event: a process reads the standings once and sends the
same encoded text to all its sockets of that event (lila's debounced crowd, encoded once).
Client -> server: `{"type": "ping"}` only.
"""
import asyncio
import time
from collections import defaultdict

from live import lanes
from live.outbox import encoded
from live.sockets import JsonSocket
from tournaments import news
from tournaments.models import Tournament
from tournaments.standings import table

MIN_GAP = 1.0  # seconds between two pushes of one event's standings


def standings_message(tournament_id):
    tournament = Tournament.objects.filter(pk=tournament_id).first()
    if tournament is None:
        return None
    return {"type": "standings", "status": tournament.status, "rows": table(tournament)}


class Pusher:
    """This process's sockets per event, and the pending push of each event."""

    def __init__(self):
        self.sockets = defaultdict(set)
        self.pending = {}
        self.last = {}

    def changed(self, tournament_id):
        if not self.sockets.get(tournament_id):
            return
        pending = self.pending.get(tournament_id)
        if pending is not None and not pending.done() and (
                pending.get_loop() is asyncio.get_running_loop()):
            return
        wait = max(0.0, self.last.get(tournament_id, 0.0) + MIN_GAP - time.monotonic())
        self.pending[tournament_id] = asyncio.get_running_loop().create_task(
            self.push(tournament_id, wait))

    async def push(self, tournament_id, wait):
        await asyncio.sleep(wait)
        # A change heard from here on makes a new push: this read might not see it.
        self.pending.pop(tournament_id, None)
        self.last[tournament_id] = time.monotonic()
        message = await lanes.read(standings_message, tournament_id)
        if message is None:
            return
        text = encoded(message)
        for socket in list(self.sockets.get(tournament_id, ())):
            await socket.send(text_data=text)


PUSHER = Pusher()


class TournamentConsumer(JsonSocket):
    unknown_text = "the event socket only takes pings"

    async def connect(self):
        if not self.admitted():
            return await self.refuse()
        self.tournament_id = int(self.scope["url_route"]["kwargs"]["tournament_id"])
        message = await lanes.read(standings_message, self.tournament_id)
        if message is None:
            return await self.refuse()
        await self.join(news.group_of(self.tournament_id))
        await self.accept()
        PUSHER.sockets[self.tournament_id].add(self)
        await self.send_json(message)

    async def disconnect(self, code):
        sockets = PUSHER.sockets.get(getattr(self, "tournament_id", None))
        if sockets is not None:
            sockets.discard(self)
            if not sockets:
                PUSHER.sockets.pop(self.tournament_id, None)
        await super().disconnect(code)

    async def tournament_changed(self, event):
        PUSHER.changed(event["tournament_id"])
