"""A budget of snapshots per client address and per account, across sockets and processes.

A snapshot is the dearest thing a socket can ask for (a Tripen 13 game's is ~180 KB), and
one is sent on every connection and every `snapshot` request. The per-socket message limit
(live.sockets.RateLimit) does not bound them: twenty sockets, each within its limit, made a
player's ping go from 1 ms to 448 ms. So every snapshot also takes a token from two buckets:
its client address's and, when logged in, its account's (LIVE_SNAPSHOT_BURST at once, then
LIVE_SNAPSHOT_PER_SECOND); with either empty it is refused.

The buckets live in Redis when the site has one (REDIS_URL), updated by one Lua script, so
that all server processes share them and a flooder gains nothing by reconnecting to another
one; else in this process's memory (a site of one process). If Redis cannot be reached the
snapshot is allowed: the budget protects the site, it must not take it down.
"""
import asyncio
import logging
import math
import time
import weakref

from django.conf import settings

logger = logging.getLogger(__name__)

# Takes for several snapshots at once: ARGV[3..] are how many of KEYS each take names, in
# order. A take takes a token from each of its buckets (burst ARGV[1], refilled at ARGV[2] a
# second) if each has one; else it takes none. Takes that share a bucket (one address's
# sockets) see each other's, in order. Returns each take's seconds to wait (0: taken), as text
# (Redis would truncate a Lua number to an integer). Redis's own clock, so processes agree.
TAKE = """
local burst, rate = tonumber(ARGV[1]), tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local waits, first = {}, 1
for take = 3, #ARGV do
  local last = first + tonumber(ARGV[take]) - 1
  local tokens, wait = {}, 0
  for i = first, last do
    local kept = redis.call('HMGET', KEYS[i], 'tokens', 'at')
    local have = tonumber(kept[1]) or burst
    local at = tonumber(kept[2]) or now
    have = math.min(burst, have + math.max(0, now - at) * rate)
    tokens[i] = have
    if have < 1 then wait = math.max(wait, (1 - have) / rate) end
  end
  for i = first, last do
    local left = tokens[i]
    if wait == 0 then left = left - 1 end
    redis.call('HSET', KEYS[i], 'tokens', tostring(left), 'at', tostring(now))
    redis.call('EXPIRE', KEYS[i], math.ceil(burst / rate) + 1)
  end
  waits[#waits + 1] = tostring(wait)
  first = last + 1
end
return waits
"""


class LocalBuckets:
    """The same buckets in this process's memory."""

    def __init__(self):
        self.buckets = {}  # key -> (tokens, monotonic time)

    def take(self, keys, burst, rate):
        now = time.monotonic()
        found = []
        for key in keys:
            tokens, at = self.buckets.get(key, (burst, now))
            found.append(min(burst, tokens + (now - at) * rate))
        wait = max((0.0, *((1 - tokens) / rate for tokens in found if tokens < 1)))
        for key, tokens in zip(keys, found):
            self.buckets[key] = (tokens - 1 if wait == 0 else tokens, now)
        if len(self.buckets) > 100_000:
            # Full buckets carry no information: forget them.
            self.buckets = {k: v for k, v in self.buckets.items()
                            if v[0] + (now - v[1]) * rate < burst}
        return wait

    def clear(self):
        self.buckets.clear()


local = LocalBuckets()
# One Redis client per event loop (a client is bound to the loop it was made in).
_clients = weakref.WeakKeyDictionary()


def _script():
    loop = asyncio.get_running_loop()
    script = _clients.get(loop)
    if script is None:
        import redis.asyncio

        client = redis.asyncio.Redis.from_url(settings.REDIS_URL, socket_timeout=2)
        script = _clients[loop] = client.register_script(TAKE)
    return script


def shared():
    """Whether the buckets are shared by the site's processes (in Redis)."""
    return bool(settings.REDIS_URL)


def keys_of(address, user_id):
    prefix = f"{settings.REDIS_PREFIX}:snapshots"
    keys = [f"{prefix}:address:{address}"]
    if user_id is not None:
        keys.append(f"{prefix}:user:{user_id}")
    return keys


async def take_snapshot(address, user_id):
    """Take one snapshot from the budgets of `address` and of the account `user_id` (None: a
    visitor). Returns 0 if allowed, else the seconds until one would be."""
    keys = keys_of(address, user_id)
    if not shared():
        return local.take(keys, settings.LIVE_SNAPSHOT_BURST, settings.LIVE_SNAPSHOT_PER_SECOND)
    return await _taking().add(keys)


class Takes:
    """The takes asked on one event loop while none is on its way to Redis, sent together in
    one call of the script: a restart's crowd asks for hundreds of snapshots a second, and a
    call each (a round trip, a pooled connection taken and given back) cost the loop 0.06-0.08
    ms a take, 0.015 in calls of 16 (docs/measurements.md). None waits longer than it would
    alone: the first goes on the loop's next turn, with those asked meanwhile."""

    def __init__(self):
        self.waiting = None   # [(keys, future)] of the call not yet sent
        self.calls = set()    # the calls under way (the loop keeps only weak references)

    async def add(self, keys):
        if self.waiting is None:
            self.waiting = []
            call = asyncio.ensure_future(self._send(self.waiting))
            self.calls.add(call)
            call.add_done_callback(self.calls.discard)
        taken = asyncio.get_running_loop().create_future()
        self.waiting.append((keys, taken))
        return await taken

    async def _send(self, takes):
        self.waiting = None   # from now on, takes go in the next call
        burst, rate = settings.LIVE_SNAPSHOT_BURST, settings.LIVE_SNAPSHOT_PER_SECOND
        try:
            waits = await _script()(keys=[key for keys, _ in takes for key in keys],
                                    args=[burst, rate, *(len(keys) for keys, _ in takes)])
            waits = [float(wait) for wait in waits]
        except Exception:
            logger.warning("snapshot budget: Redis unavailable, allowing", exc_info=True)
            waits = [0.0] * len(takes)
        for (_, taken), wait in zip(takes, waits):
            if not taken.done():   # (its socket may have gone meanwhile)
                taken.set_result(wait)


# One batch of takes per event loop, as the Redis clients.
_takes = weakref.WeakKeyDictionary()


def _taking():
    loop = asyncio.get_running_loop()
    takes = _takes.get(loop)
    if takes is None:
        takes = _takes[loop] = Takes()
    return takes


def wait_text(seconds):
    return f"{math.ceil(seconds)} s"
