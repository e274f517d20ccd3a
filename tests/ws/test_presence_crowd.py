"""Presence news waits for a crowd being let in (play.rooms, live.admission.crowded()): each
round of news goes to every socket of each game that changed, so a crowd let in one socket at a
time over seconds would make a round per socket; it waits, up to PRESENCE_CROWD_WAIT from the
first change, and then goes out as one."""
import asyncio

import pytest

from live import admission
from play import rooms


@pytest.fixture
def announced(monkeypatch):
    rounds = []

    async def announce():
        rooms._flush["handle"] = None
        rounds.append(sorted(rooms._presence_due))
        rooms._presence_due.clear()

    monkeypatch.setattr(rooms, "_announce_presence", announce)
    monkeypatch.setattr(rooms, "PRESENCE_DEBOUNCE", 0.02)
    monkeypatch.setattr(rooms, "_flush", {"handle": None, "loop": None, "announcing": None})
    monkeypatch.setattr(rooms, "_presence_due", set())
    return rounds


def test_news_waits_while_a_crowd_is_let_in_and_goes_out_once_it_is(announced, monkeypatch):
    crowd = {"waiting": True}
    monkeypatch.setattr(admission, "crowded", lambda: crowd["waiting"])
    monkeypatch.setattr(rooms, "PRESENCE_CROWD_WAIT", 10)

    async def scenario():
        for game_id in (1, 2, 3):
            rooms.presence_changed(game_id)
            await asyncio.sleep(0.05)
        assert announced == []
        crowd["waiting"] = False
        await asyncio.sleep(0.1)
        assert announced == [[1, 2, 3]]

    asyncio.run(scenario())


def test_news_waits_no_longer_than_its_allowance(announced, monkeypatch):
    monkeypatch.setattr(admission, "crowded", lambda: True)
    monkeypatch.setattr(rooms, "PRESENCE_CROWD_WAIT", 0.1)

    async def scenario():
        rooms.presence_changed(7)
        await asyncio.sleep(0.05)
        assert announced == []
        await asyncio.sleep(0.2)
        assert announced == [[7]]

    asyncio.run(scenario())


def test_without_a_crowd_news_goes_out_after_the_debounce(announced, monkeypatch):
    monkeypatch.setattr(admission, "crowded", lambda: False)

    async def scenario():
        rooms.presence_changed(4)
        rooms.presence_changed(5)
        await asyncio.sleep(0.1)
        assert announced == [[4, 5]]

    asyncio.run(scenario())
