"""live.lanes.Gathered: a write many sockets ask for at once (the presence rows of a crowd that
leaves together) goes in few writer jobs, each caller answered once its item is committed."""
import asyncio
import threading

import pytest

from live import lanes
from live.models import Presence
from live import presence as ledger
from tests.ws.sockets import Socket, run

pytestmark = pytest.mark.django_db(transaction=True)


def test_items_added_while_a_job_waits_for_the_writer_go_with_it():
    calls = []
    writer_free = threading.Event()

    def hold_the_writer():
        writer_free.wait(5)

    def write_all(items):
        calls.append(list(items))
        return len(items)

    gathered = lanes.Gathered(write_all)

    async def scenario():
        blocker = asyncio.ensure_future(lanes.write(hold_the_writer))
        await asyncio.sleep(0.05)
        callers = [asyncio.ensure_future(gathered.add(n)) for n in range(5)]
        await asyncio.sleep(0.05)
        # One caller gives up meanwhile: its item is still written, the others answered.
        callers[1].cancel()
        writer_free.set()
        await blocker
        answers = await asyncio.gather(*callers, return_exceptions=True)
        assert [a for i, a in enumerate(answers) if i != 1] == [5, 5, 5, 5]
        # Once that job has started, a new item starts another.
        assert await gathered.add(9) == 1

    run(scenario)
    assert calls == [[0, 1, 2, 3, 4], [9]]


def test_a_crowd_closing_its_game_sockets_at_once_leaves_no_presence_rows(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob])
    tabs = [Socket(game.pk, None) for _ in range(6)] + [Socket(game.pk, alice)]

    async def scenario():
        for tab in tabs:
            await tab.open()
        assert await lanes.read(lambda: Presence.objects.filter(game_id=game.pk).count()) == 7
        await asyncio.gather(*(tab.close() for tab in tabs))

    run(scenario)
    assert not Presence.objects.filter(game_id=game.pk).exists()
    assert ledger.counted("game").count() == 0
