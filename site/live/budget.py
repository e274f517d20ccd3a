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

# Takes a token from every bucket KEYS[i] (burst ARGV[1], refilled at ARGV[2] a second) if
# each has one; else takes none. Returns the seconds to wait (0: taken), as text (Redis
# would truncate a Lua number to an integer). Redis's own clock, so processes agree.
TAKE = """
local burst, rate = tonumber(ARGV[1]), tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) + tonumber(clock[2]) / 1000000
local tokens, wait = {}, 0
for i, key in ipairs(KEYS) do
  local kept = redis.call('HMGET', key, 'tokens', 'at')
  local have = tonumber(kept[1]) or burst
  local at = tonumber(kept[2]) or now
  have = math.min(burst, have + math.max(0, now - at) * rate)
  tokens[i] = have
  if have < 1 then wait = math.max(wait, (1 - have) / rate) end
end
for i, key in ipairs(KEYS) do
  local left = tokens[i]
  if wait == 0 then left = left - 1 end
  redis.call('HSET', key, 'tokens', tostring(left), 'at', tostring(now))
  redis.call('EXPIRE', key, math.ceil(burst / rate) + 1)
end
return tostring(wait)
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
    burst, rate = settings.LIVE_SNAPSHOT_BURST, settings.LIVE_SNAPSHOT_PER_SECOND
    keys = keys_of(address, user_id)
    if not shared():
        return local.take(keys, burst, rate)
    try:
        return float(await _script()(keys=keys, args=[burst, rate]))
    except Exception:
        logger.warning("snapshot budget: Redis unavailable, allowing", exc_info=True)
        return 0.0


def wait_text(seconds):
    return f"{math.ceil(seconds)} s"
