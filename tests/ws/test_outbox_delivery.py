"""An outbox's news is sent in order from the event loop (live.outbox), a few events per turn
of the loop: a crowd's news (a restart's presence news of hundreds of games) does not hold the
loop in one step."""
import asyncio

from live import outbox
from tests.ws.sockets import run


def test_a_long_outbox_gives_the_loop_turns_and_keeps_its_order(monkeypatch):
    sent, ran = [], []

    async def group_send(group, event):
        sent.append(event["n"])

    monkeypatch.setattr(outbox, "group_send", group_send)
    monkeypatch.setattr(outbox, "get_channel_layer", lambda: object())  # one event at a time

    async def scenario():
        box = outbox.Outbox()
        box.events = [("game-1", {"n": n}) for n in range(3 * outbox.DELIVER_TURN)]

        async def other_work():
            ran.append(len(sent))
        waiting = asyncio.ensure_future(other_work())
        await box.deliver()
        await waiting

    run(scenario)
    assert sent == list(range(3 * outbox.DELIVER_TURN))
    # The other work ran between two turns of the delivery, not after it.
    assert ran == [outbox.DELIVER_TURN]
