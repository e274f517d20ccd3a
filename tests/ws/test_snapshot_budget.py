"""Snapshots have a budget per client address and per account, across sockets (live.budget),
and the position in a snapshot is encoded once per ply (play.positions.Position)."""
import os
import time

import pytest
from asgiref.sync import async_to_sync
from django.test import override_settings

from live import budget
from play import positions
from tests.ws.sockets import Socket, headers_for, run

pytestmark = pytest.mark.django_db(transaction=True)

TIGHT = override_settings(LIVE_SNAPSHOT_BURST=3, LIVE_SNAPSHOT_PER_SECOND=0.01)


def from_address(tab, address):
    # The consumer reads the scope when it starts, after this (no await in between).
    tab.communicator.scope["client"] = (address, 40000)
    return tab


@TIGHT
def test_snapshots_beyond_the_addresss_budget_are_refused_across_sockets(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})

    async def scenario():
        first = from_address(Socket(game.pk, headers=headers_for(None)), "203.0.113.9")
        await first.open()  # one
        second = from_address(Socket(game.pk, headers=headers_for(None)), "203.0.113.9")
        await second.open()  # two
        await first.send(type="snapshot")
        assert (await first.receive())["type"] == "snapshot"  # three
        await second.send(type="snapshot")
        refused = await second.receive()
        assert (refused["type"], refused["code"]) == ("error", "rate_limited")
        assert "too many snapshots" in refused["message"]
        # A new connection from there is refused at the handshake ...
        third = from_address(Socket(game.pk, headers=headers_for(None)), "203.0.113.9")
        assert not await third.connect()
        # ... while another address is served.
        elsewhere = from_address(Socket(game.pk, headers=headers_for(None)), "198.51.100.4")
        await elsewhere.open()
        for tab in (first, second, elsewhere):
            await tab.close()

    headers_for(None)
    run(scenario)


@TIGHT
def test_an_accounts_budget_holds_whatever_the_address(users, new_game):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "hadron", {"size": 5})
    headers = [headers_for(alice) for _ in range(4)]

    async def scenario():
        tabs = []
        for number in range(3):
            tab = from_address(Socket(game.pk, headers=headers[number]), f"203.0.113.{number}")
            await tab.open()
            tabs.append(tab)
        fourth = from_address(Socket(game.pk, headers=headers[3]), "198.51.100.77")
        assert not await fourth.connect()
        for tab in tabs:
            await tab.close()

    run(scenario)


def test_a_snapshot_sends_the_position_text_made_once_per_ply(users, new_game, monkeypatch):
    alice, bob = users("alice", "bob")
    game = new_game([alice, bob], "tripen", {"size": 13})
    made = []
    original = positions.encoded
    monkeypatch.setattr(positions, "encoded",
                        lambda value: made.append(type(value).__name__) or original(value))

    async def scenario():
        tabs = [Socket(game.pk, headers=headers_for(None)) for _ in range(3)]
        snapshots = [await tab.open() for tab in tabs]
        await tabs[0].send(type="snapshot")
        # expect() steps over the presence news of the tabs that opened, which may come first.
        again = (await tabs[0].expect("snapshot"))["game"]
        assert again["state"] == snapshots[0]["state"]
        assert snapshots[0]["state"]["game"] == "tripen" and snapshots[0]["state"]["board"]
        for tab in tabs:
            await tab.close()

    headers_for(None)
    run(scenario)
    # Four snapshots, one encoding of the position (the rest of each is encoded each time).
    assert made.count("Position") == 1


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs Redis (REDIS_URL)")
def test_the_buckets_in_redis_are_shared_and_refill(settings, monkeypatch):
    monkeypatch.setattr(budget, "shared", lambda: True)
    settings.REDIS_URL = os.environ["REDIS_URL"]
    settings.REDIS_PREFIX = f"tessera-budget-test-{os.getpid()}"
    # Slow enough to refill that a busy machine's pauses between the calls (a refill at 20 a
    # second came back within 50 ms, and the test read a full bucket) do not refill it.
    settings.LIVE_SNAPSHOT_BURST, settings.LIVE_SNAPSHOT_PER_SECOND = 2, 2
    take = async_to_sync(budget.take_snapshot)
    assert take("203.0.113.1", 7) == 0 and take("203.0.113.2", 7) == 0
    # The account's bucket is empty, whatever the address; another account is not.
    assert 0 < take("203.0.113.3", 7) <= 1 / 2
    assert take("203.0.113.3", 8) == 0
    time.sleep(0.55)
    assert take("203.0.113.4", 7) == 0  # refilled at 2 a second


def counted_calls(monkeypatch):
    """The calls of the budget's script, each as its keyword arguments."""
    calls, script_of_loop = [], budget._script

    def counting():
        script = script_of_loop()

        async def call(**kwargs):
            calls.append(kwargs)
            return await script(**kwargs)
        return call

    monkeypatch.setattr(budget, "_script", counting)
    return calls


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs Redis (REDIS_URL)")
def test_takes_asked_together_go_in_one_call_and_see_each_others_tokens(settings, monkeypatch):
    """A crowd's handshakes take their snapshots in one call of the script (live.budget.Takes):
    takes from one address empty its bucket in the order they were asked, another address's
    and an account's are their own."""
    import asyncio

    monkeypatch.setattr(budget, "shared", lambda: True)
    settings.REDIS_URL = os.environ["REDIS_URL"]
    settings.REDIS_PREFIX = f"tessera-budget-together-{os.getpid()}"
    settings.LIVE_SNAPSHOT_BURST, settings.LIVE_SNAPSHOT_PER_SECOND = 2, 0.01
    calls = counted_calls(monkeypatch)

    async def together():
        return await asyncio.gather(
            *(budget.take_snapshot("203.0.113.5", None) for _ in range(3)),
            budget.take_snapshot("203.0.113.6", 9), budget.take_snapshot("203.0.113.6", 9))

    waits = async_to_sync(together)()
    assert waits[:2] == [0, 0] and 0 < waits[2] <= 100
    # The second take of 203.0.113.6 empties the account's bucket with its address's.
    assert waits[3:] == [0, 0]
    assert len(calls) == 1
    assert calls[0]["args"][2:] == [1, 1, 1, 2, 2]
    # Asked one after the other, each is a call of its own, and the buckets remember.
    assert async_to_sync(budget.take_snapshot)("203.0.113.7", 9) > 0
    assert async_to_sync(budget.take_snapshot)("203.0.113.7", None) == 0
    assert len(calls) == 3


def test_without_redis_every_take_of_a_call_is_allowed(settings, monkeypatch, caplog):
    """The budget protects the site, it must not take it down: Redis gone, the takes asked
    together are all allowed, and the failure is logged."""
    import asyncio

    monkeypatch.setattr(budget, "shared", lambda: True)
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    settings.LIVE_SNAPSHOT_BURST, settings.LIVE_SNAPSHOT_PER_SECOND = 1, 0.01

    async def together():
        return await asyncio.gather(*(budget.take_snapshot("203.0.113.8", 3) for _ in range(4)))

    assert async_to_sync(together)() == [0.0] * 4
    assert "Redis unavailable, allowing" in caplog.text
