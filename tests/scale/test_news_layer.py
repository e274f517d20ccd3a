"""The Redis channel layer's site channel (live.layers.RedisNewsLayer): the site-wide groups'
news (live.groups.site_wide) leave as one PUBLISH on a channel every process hears, and each
process hands each news to its own members. Two layers stand for two processes: each has its
own Redis connections, as a process does (tests/scale/conftest.py skips these without
REDIS_URL=redis://...)."""
import asyncio
import uuid

import pytest
import redis

from live.layers import RedisNewsLayer
from tests.scale.conftest import REDIS_URL

pytestmark = pytest.mark.scale

QUIET = 0.3  # seconds a socket hears nothing in, where nothing is due


def two_processes():
    prefix = f"t{uuid.uuid4().hex[:8]}"
    config = {"hosts": [{"address": REDIS_URL, "socket_timeout": None}], "prefix": prefix}
    return RedisNewsLayer(**config), RedisNewsLayer(**config), prefix


def run(scenario):
    async def main():
        first, second, prefix = two_processes()
        try:
            await scenario(first, second, prefix)
        finally:
            await first.flush()
            await second.flush()
    asyncio.run(main())


async def heard(layer, channel):
    return await asyncio.wait_for(layer.receive(channel), 5)


async def hears_nothing(layer, channel):
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(layer.receive(channel), QUIET)


async def listening():
    """A moment for the processes' subscribers to be listening (redis-py sends a SUBSCRIBE
    without waiting for its answer)."""
    await asyncio.sleep(0.1)


def test_site_wide_news_reaches_a_member_in_another_process():
    async def scenario(first, second, prefix):
        lobby = await first.new_channel()
        await first.group_add("user-5", lobby)
        await listening()
        await second.group_send("user-5", {"type": "turn", "game_id": 12})
        assert await heard(first, lobby) == {"type": "turn", "game_id": 12}
    run(scenario)


def test_one_pipelines_news_arrive_in_order_each_to_its_own_groups_members():
    async def scenario(first, second, prefix):
        lobby, watch, page = [await first.new_channel() for _ in range(3)]
        await first.group_add("user-1", lobby)
        await first.group_add("games", watch)
        await first.group_add("game-9", page)
        await listening()
        await second.group_send_all([
            ("user-1", {"type": "turn", "n": 1}), ("games", {"type": "games.changed", "n": 2}),
            ("game-9", {"type": "action", "n": 3}), ("user-1", {"type": "turn", "n": 4}),
            ("user-2", {"type": "turn", "n": 5})])
        assert [(await heard(first, lobby))["n"] for _ in range(2)] == [1, 4]
        assert (await heard(first, watch))["n"] == 2
        assert (await heard(first, page))["n"] == 3
        for channel in (lobby, watch, page):
            await hears_nothing(first, channel)
    run(scenario)


def test_site_wide_groups_have_no_redis_channel_of_their_own():
    async def scenario(first, second, prefix):
        socket = await first.new_channel()
        for group in ("games", "lobby", "user-3", "account-3", "token-8", "game-4",
                      "tournament-2"):
            await first.group_add(group, socket)
        await listening()
        client = redis.Redis.from_url(REDIS_URL)
        try:
            channels = {name.decode() for name in client.pubsub_channels(f"{prefix}*")}
        finally:
            client.close()
        assert channels == {socket, f"{prefix}__site__", f"{prefix}__group__game-4",
                            f"{prefix}__group__tournament-2", f"{prefix}__group__account-3",
                            f"{prefix}__group__token-8"}
    run(scenario)


def test_a_member_that_left_hears_no_more_and_the_others_still_do():
    async def scenario(first, second, prefix):
        leaving, staying = await first.new_channel(), await first.new_channel()
        elsewhere = await second.new_channel()
        for layer, channel in ((first, leaving), (first, staying), (second, elsewhere)):
            await layer.group_add("games", channel)
        await first.group_discard("games", leaving)
        await listening()
        await first.group_send("games", {"type": "games.changed", "game_id": 1})
        assert (await heard(first, staying))["game_id"] == 1
        assert (await heard(second, elsewhere))["game_id"] == 1
        await hears_nothing(first, leaving)
        # The last member gone, the process keeps hearing the site channel and drops the news.
        await first.group_discard("games", staying)
        await second.group_send("games", {"type": "games.changed", "game_id": 2})
        assert (await heard(second, elsewhere))["game_id"] == 2
        await hears_nothing(first, staying)
    run(scenario)


def test_group_add_refuses_a_channel_of_another_process():
    async def scenario(first, second, prefix):
        theirs = await second.new_channel()
        with pytest.raises(RuntimeError):
            await first.group_add("user-1", theirs)
    run(scenario)
