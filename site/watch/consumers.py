"""The Watch page's socket, /ws/watch/?game=<name>&featured=<id>: a push channel.

It joins the channel-layer group "games" (live.groups.GAMES), where the play app
announces, after each commit, every game that starts, every action and every end, and keeps
its page's list and featured game up to date. `game` filters by game (as the page's ?game=);
`featured` is the game the page features already, kept while it is in progress (so a
reconnect does not switch boards).

The featured game (watch.services.liveliest) stays until it ends, or until it has had no
action for LIVELY_WINDOW while another game is being played; then the socket names the
liveliest game in progress (or null).

Its messages, both ways, are in docs/watch-protocol.md.
"""
import asyncio
import time
from datetime import datetime
from urllib.parse import parse_qs

from django.utils import timezone

from live import groups, lanes
from live.sockets import JsonSocket
from watch import services
from watch.forms import WatchFilter

class SharedRead:
    """One read of the database, started a moment after it is asked for."""

    def __init__(self, loop, read, key, gather):
        self.loop = loop
        self.started = None  # monotonic time the read began
        self.task = loop.create_task(self.run(read, key, gather))

    async def run(self, read, key, gather):
        await asyncio.sleep(gather)
        self.started = time.monotonic()
        return await read(*key)

    def fresh_for(self, heard, loop):
        """Does this read see a change that a socket heard of at `heard`?"""
        if self.loop is not loop:
            return False
        if self.task.done() and (self.task.cancelled() or self.task.exception() is not None):
            return False
        return self.started is None or self.started > heard


class SharedReads:
    """One database read for all the Watch sockets of a process that heard of the same change.

    Every socket hears of each change of each game at about the same moment. The play app
    announces a change only after its transaction has committed, so a read that begins after
    a socket heard of a change sees it: a socket may share any read of the same key that has
    not begun yet or began after the socket heard, and asks for a new one otherwise. A read
    waits `gather` seconds before it begins, so the sockets that hear of the change meanwhile
    (the event loop runs their handlers one after the other) share it: hundreds of watchers
    cost one query per change and process instead of one each."""

    def __init__(self, read, gather=0.02, keep=512):
        self.read = lambda *key: lanes.read(read, *key)
        self.gather = gather
        self.keep = keep
        self.reads = {}  # key -> the latest SharedRead

    async def get(self, key, heard):
        loop = asyncio.get_running_loop()
        found = self.reads.get(key)
        if found is None or not found.fresh_for(heard, loop):
            found = SharedRead(loop, self.read, key, self.gather)
            self.reads[key] = found
            self.forget_finished()
        # A socket that goes away must not cancel the read others are waiting for.
        return await asyncio.shield(found.task)

    def forget_finished(self):
        if len(self.reads) > self.keep:
            self.reads = {key: read for key, read in self.reads.items() if not read.task.done()}


NEWS = SharedReads(services.news_of)
LIVELIEST = SharedReads(services.featured_row)


def query_of(scope):
    parsed = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    return {name: values[-1] for name, values in parsed.items()}


def game_id_of(text):
    return int(text) if text and text.isdigit() and len(text) < 19 else None


class WatchConsumer(JsonSocket):
    unknown_text = "the Watch socket only takes pings"

    async def connect(self):
        if not self.admitted():
            return await self.refuse()
        query = query_of(self.scope)
        self.kind = WatchFilter.from_query(query).kind()
        self.featured_id = self.featured_updated = None
        await self.join(groups.GAMES)
        await self.accept()
        keep = game_id_of(query.get("featured"))
        listing = await lanes.read(services.listing, self.kind, keep)
        self.feature(listing["featured"])
        await self.send_json({"type": "list", **listing})

    # -- news from the play app --------------------------------------------------------------

    async def games_changed(self, event):
        heard = time.monotonic()
        news = await NEWS.get((event["game_id"],), heard)
        if news is None or (self.kind and news["game"] != self.kind):
            return
        total = news["totals"].get(self.kind, 0) if self.kind else sum(news["totals"].values())
        if not news["active"]:
            await self.send_json({"type": "remove", "id": news["id"], "total": total})
            if news["id"] == self.featured_id:
                await self.refeature(heard, ended={"id": news["id"], "result": news["result"]})
            return
        await self.send_json({"type": "row", "game": news["row"], "total": total})
        if news["id"] == self.featured_id:
            self.featured_updated = news["updated_at"]
        elif self.featured_id is None or self.featured_is_quiet():
            await self.refeature(heard)

    # -- the featured game -------------------------------------------------------------------

    def feature(self, row):
        self.featured_id = row["id"] if row else None
        self.featured_updated = datetime.fromisoformat(row["updated"]) if row else None

    def featured_is_quiet(self):
        """The featured game has had no action for a while: another game that is being
        played may take its place (liveliness counts recent actions first)."""
        return timezone.now() - self.featured_updated > services.LIVELY_WINDOW

    async def refeature(self, heard, ended=None):
        row = await LIVELIEST.get((self.kind,), heard)
        if ended is None and (row is None or row["id"] == self.featured_id):
            return
        self.feature(row)
        await self.send_json({"type": "featured", "game": row, "ended": ended})
