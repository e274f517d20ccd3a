"""The channel layers: in the embedded default Channels' in-memory layer, made to scale with the
number of sockets of one process; at scale channels-redis's pub/sub layer, pipelined
(RedisNewsLayer, below).

Channels' InMemoryChannelLayer walks every channel and every group membership of the process
to expire old entries on every receive and every group send, deep-copies each message for each
recipient and starts a task per recipient: with a few thousand sockets, each message cost
milliseconds of that. This layer expires at most once a second, and a group send puts the
message straight on each member's queue (a shallow copy: the site's events are flat dicts of
text and numbers, live.sockets.event). Everything else is Channels' own.
"""
import asyncio
import time

from channels.layers import InMemoryChannelLayer
from channels_redis.pubsub import RedisPubSubChannelLayer, RedisSingleShardConnection
from channels_redis.utils import create_pool
from django.dispatch import Signal
from redis.asyncio import Redis
from redis.asyncio.client import PubSub

CLEAN_EVERY = 1.0

# This process's subscriber to the channel layer's news reconnected (Redis restarted, the
# connection cut) and subscribed again: what was published meanwhile never reached it. Sent on
# the event loop; live.process answers with a keep-alive to every open socket at once.
news_missed = Signal()


class LocalChannelLayer(InMemoryChannelLayer):
    cleaned_at = 0.0

    def _clean_expired(self):
        now = time.monotonic()
        if now - self.cleaned_at < CLEAN_EVERY:
            return
        self.cleaned_at = now
        super()._clean_expired()

    async def group_send(self, group, message):
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        expires = time.time() + self.expiry
        for channel in list(self.groups.get(group, ())):
            queue = self.channels.get(channel)
            if queue is None:
                queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
            try:
                queue.put_nowait((expires, dict(message)))
            except asyncio.QueueFull:
                pass  # as Channels does: a full channel misses group news


class RedisNewsLayer(RedisPubSubChannelLayer):
    """The channel layer at scale: channels-redis's pub/sub layer, with group sends pipelined.

    In channels-redis's default layer a group send writes the message once per member socket
    into Redis, and each process pops them one at a time: a move cost a dozen round trips. In
    its pub/sub layer a group send is one PUBLISH; each process subscribed to the group (it has
    a member socket) receives it once and hands it to its own sockets, as lila-ws does. Group
    memberships live in the process that holds the sockets, so Redis has none to lose or
    expire; a lost subscription (Redis restarted, connection cut) is renewed by redis-py on
    reconnect, and what was published meanwhile is caught up at once: the subscriber says so
    (news_missed) and the process sends every socket its keep-alive (live.process), not at
    the next LIVE_KEEPALIVE, up to 30 s later.

    Its publishes wait, one at a time, on a lock per Redis host; here they queue instead and
    leave in pipelines, so under load one round trip carries the news of many moves, in the
    order they were sent."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._publishers = {}

    async def group_send(self, group, message):
        await self.queue_publish(group, message)

    async def group_send_all(self, events):
        """Send (group, message) pairs in order, in the same pipelines (live.outbox)."""
        sent = [self.queue_publish(group, message) for group, message in events]
        await asyncio.gather(*sent)

    def _get_layer(self):
        layer = super()._get_layer()
        if not layer._shards or type(layer._shards[0]) is RedisSingleShardConnection:
            # Made just now for this event loop, not connected yet: our subscribers instead.
            layer._shards = [NewsShard(shard.host, layer) for shard in layer._shards]
        return layer

    def queue_publish(self, group, message):
        layer = self._get_layer()
        channel = layer._get_group_channel_name(group)
        shard = layer._get_shard(channel)
        publisher = self._publishers.get(shard)
        if publisher is None or publisher.loop is not asyncio.get_running_loop():
            publisher = self._publishers[shard] = Publisher(shard.host)
        return publisher.publish(channel, self.serialize(message))


class Publisher:
    """PUBLISHes to one Redis host, in order, as pipelines of whatever queued meanwhile."""

    def __init__(self, host):
        self.loop = asyncio.get_running_loop()
        self.redis = Redis(connection_pool=create_pool(host))
        self.queued = []
        self.task = None

    def publish(self, channel, data):
        done = self.loop.create_future()
        self.queued.append((channel, data, done))
        if self.task is None or self.task.done():
            self.task = self.loop.create_task(self.drain())
        return done

    async def drain(self):
        while self.queued:
            batch, self.queued = self.queued, []
            try:
                pipe = self.redis.pipeline(transaction=False)
                for channel, data, _ in batch:
                    pipe.publish(channel, data)
                await pipe.execute()
            except Exception as error:
                for *_, done in batch:
                    if not done.done():
                        done.set_exception(error)
                continue
            for *_, done in batch:
                if not done.done():
                    done.set_result(None)


class NewsShard(RedisSingleShardConnection):
    """channels-redis's connection to one Redis host, whose subscriber tells of its reconnects."""

    def _ensure_redis(self):
        if self._redis is None:
            self._redis = Redis(connection_pool=create_pool(self.host))
            self._pubsub = NewsPubSub(self._redis.connection_pool,
                                      event_dispatcher=self._redis._event_dispatcher)


class NewsPubSub(PubSub):
    async def on_connect(self, connection):
        """redis-py calls this on every connect; with subscriptions already made it is a
        reconnect, after which it subscribes again, and news was missed meanwhile."""
        again = self.subscribed
        await super().on_connect(connection)
        if again:
            news_missed.send(sender=type(self))
