"""The channel layer of the embedded default: Channels' in-memory layer, made to scale with the
number of sockets of one process.

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

CLEAN_EVERY = 1.0


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
