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

from live import groups

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
    order they were sent.

    The site-wide groups (live.groups.site_wide: Watch, the lobby, each person's lobby
    sockets) have no channel of their own: their news queued meanwhile leaves as one PUBLISH on
    the site channel, which a process subscribes to once it has a member of any of them, and
    each process hands each news to its own members of the group, if any. A move's news to the
    Watch sockets and to both players' lobby sockets was three PUBLISHes besides the game's
    (docs/measurements.md, "The site channel"), and each lobby socket's handshake a SUBSCRIBE."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._publishers = {}

    async def group_send(self, group, message):
        await self.queue_publish(group, message)

    async def group_add(self, group, channel):
        layer = self._get_layer()
        if not groups.site_wide(group):
            return await layer.group_add(group, channel)
        if channel not in layer.channels:
            raise RuntimeError(f"group_add({group!r}, {channel!r}): the channel is not this "
                               "process's (see channels-redis's group_add)")
        layer.groups.setdefault(layer._get_group_channel_name(group), set()).add(channel)
        site = site_channel(layer)
        await layer._get_shard(site).subscribe(site)

    async def group_discard(self, group, channel):
        layer = self._get_layer()
        if not groups.site_wide(group):
            return await layer.group_discard(group, channel)
        # The site channel stays subscribed: the process hears it as long as it runs.
        name = layer._get_group_channel_name(group)
        members = layer.groups.get(name)
        if members is not None:
            members.discard(channel)
            if not members:
                del layer.groups[name]

    async def group_send_all(self, events):
        """Send (group, message) pairs in order, in the same pipelines (live.outbox)."""
        layer = self._get_layer()
        queued = {}
        for group, message in events:
            publisher, item = self._queued(layer, group, message)
            queued.setdefault(publisher, []).append(item)
        await asyncio.gather(*(publisher.publish(items) for publisher, items in queued.items()))

    def _get_layer(self):
        layer = super()._get_layer()
        if not layer._shards or type(layer._shards[0]) is RedisSingleShardConnection:
            # Made just now for this event loop, not connected yet: our subscribers instead.
            layer._shards = [NewsShard(shard.host, layer) for shard in layer._shards]
        return layer

    def queue_publish(self, group, message):
        publisher, item = self._queued(self._get_layer(), group, message)
        return publisher.publish([item])

    def _queued(self, layer, group, message):
        """(the publisher of the group's Redis host, what it publishes for this message)."""
        if groups.site_wide(group):
            return (self._publisher(layer, site_channel(layer)),
                    (None, [group, self.serialize(message)]))
        channel = layer._get_group_channel_name(group)
        return self._publisher(layer, channel), (channel, self.serialize(message))

    def _publisher(self, layer, channel):
        shard = layer._get_shard(channel)
        publisher = self._publishers.get(shard)
        if publisher is None or publisher.loop is not asyncio.get_running_loop():
            publisher = self._publishers[shard] = Publisher(shard.host, site_channel(layer),
                                                            self.serialize)
        return publisher


def site_channel(layer):
    """The Redis channel of the site-wide groups' news (RedisNewsLayer)."""
    return f"{layer.prefix}__site__"


class Publisher:
    """PUBLISHes to one Redis host, in order, as pipelines of whatever queued meanwhile; the
    site-wide groups' news of a pipeline in one PUBLISH on the site channel, as a list of
    [group, message] in the order they were sent."""

    def __init__(self, host, site, serialize):
        self.loop = asyncio.get_running_loop()
        self.redis = Redis(connection_pool=create_pool(host))
        self.site = site
        self.serialize = serialize
        self.queued = []  # (channel, data); for the site channel (None, [group, data])
        self.waiting = []  # a future per publish() call, done once its items have left
        self.task = None

    def publish(self, items):
        """Queue (channel, data) items; the future returned is done once they have left."""
        done = self.loop.create_future()
        self.queued.extend(items)
        self.waiting.append(done)
        if self.task is None or self.task.done():
            self.task = self.loop.create_task(self.drain())
        return done

    async def drain(self):
        while self.queued:
            batch, self.queued = self.queued, []
            waiting, self.waiting = self.waiting, []
            try:
                pipe = self.redis.pipeline(transaction=False)
                site_wide = []
                for channel, data in batch:
                    if channel is None:
                        site_wide.append(data)
                    else:
                        pipe.publish(channel, data)
                if site_wide:
                    pipe.publish(self.site, self.serialize({"news": site_wide}))
                await pipe.execute()
            except Exception as error:
                for done in waiting:
                    if not done.done():
                        done.set_exception(error)
                continue
            for done in waiting:
                if not done.done():
                    done.set_result(None)


class NewsShard(RedisSingleShardConnection):
    """channels-redis's connection to one Redis host, whose subscriber tells of its reconnects
    and hands the site channel's news to this process's members of each group."""

    def __init__(self, host, channel_layer):
        super().__init__(host, channel_layer)
        site = site_channel(channel_layer)
        self.site_names = (site, site.encode())  # redis-py gives the name as bytes

    def _receive_message(self, message):
        if message is None or message["channel"] not in self.site_names:
            return super()._receive_message(message)
        layer = self.channel_layer
        for group, data in layer.channel_layer.deserialize(message["data"])["news"]:
            for name in layer.groups.get(layer._get_group_channel_name(group), ()):
                queue = layer.channels.get(name)
                if queue is not None:
                    queue.put_nowait(data)

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
