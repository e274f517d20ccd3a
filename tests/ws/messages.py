"""Reading a site socket's JSON messages in tests, whatever carries them: channels'
WebsocketCommunicator in-process (tests/ws/sockets.py) or the `websockets` library against a
running server (tests/ws/live_client.py). Subclasses supply `receive(timeout)` and
`next_message(timeout)`; `background` names the message types that may come at any moment
(a game page's presence news) and are remembered rather than expected."""
import asyncio

# Seconds to wait for a message that must come: generous, since the CI machine is small and
# busy (waiting costs nothing when the message comes at once).
WAIT = 15


class MessageReader:
    name = "socket"
    background = ()

    async def receive(self, timeout):
        """The next message; fails if none comes within `timeout` seconds."""
        raise NotImplementedError

    async def next_message(self, timeout):
        """The next message, or None if none comes within `timeout` seconds."""
        raise NotImplementedError

    def seen(self, message):
        """Whether the message is news the reader already has (passed over, as a page does)."""
        return False

    def remember(self, message):
        """Keep a background message (the latest of each type, as an attribute)."""
        if message["type"] in self.background:
            setattr(self, message["type"], message)
            return True
        return False

    async def expect(self, kind, timeout=WAIT):
        """The next message of type `kind`; background news of other types is remembered on
        the way, anything else is an error."""
        while True:
            message = await self.receive(timeout)
            if self.seen(message):
                continue
            if message["type"] != kind and self.remember(message):
                continue
            assert message["type"] == kind, f"{self.name} expected {kind}, got {message}"
            self.remember(message)
            return message

    async def error(self, code, timeout=WAIT):
        message = await self.expect("error", timeout)
        assert message["code"] == code, f"{self.name} expected {code}, got {message}"
        assert isinstance(message["message"], str) and message["message"], message
        return message

    async def take(self, count, timeout=WAIT):
        """The next `count` messages other than background news, in order of arrival."""
        messages = []
        while len(messages) < count:
            message = await self.receive(timeout)
            if not self.seen(message) and not self.remember(message):
                messages.append(message)
        return messages

    async def drain(self, timeout=0.5):
        """Every message other than background news until nothing comes for `timeout`."""
        messages = []
        while (message := await self.next_message(timeout)) is not None:
            if not self.remember(message):
                messages.append(message)
        return messages

    async def presence_becomes(self, timeout=WAIT, **expected):
        """Wait until the latest presence news has these fields (presence is debounced: a
        crowd's comings and goings are announced together, a moment later). Any other
        message meanwhile is an error."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout

        def matches():
            return self.presence is not None and all(
                self.presence.get(key) == value for key, value in expected.items())

        while not matches():
            left = deadline - loop.time()
            assert left > 0, f"{self.name}: presence is {self.presence}, not {expected}"
            message = await self.receive(left)
            assert self.remember(message), f"{self.name} got unexpected {message}"
        return self.presence

    async def quiet(self, timeout=0.3):
        """Nothing but background news arrives for `timeout` seconds."""
        extra = await self.drain(timeout)
        assert not extra, f"{self.name} got unexpected {extra}"


async def all_quiet(readers, timeout=0.3):
    """quiet() on several sockets at once: one wait, not one per socket."""
    await asyncio.gather(*(reader.quiet(timeout) for reader in readers))
