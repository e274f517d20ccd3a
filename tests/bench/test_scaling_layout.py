"""bench/scaling.py's shape, without servers: where each part runs, which processes a game's
sockets go to, and how many games a slot is given when N processes share the load."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import live_load  # noqa: E402
import loadgen  # noqa: E402
import scaling  # noqa: E402


def test_on_sixteen_cores_every_part_has_cores_of_its_own(monkeypatch):
    monkeypatch.setattr(scaling.os, "sched_getaffinity", lambda pid: set(range(16)))
    cores = scaling.layout(8, per_loadgen=3)
    assert cores == {"servers": list(range(8)), "loadgens": [8, 9, 10],
                     "postgres": [11, 12, 13, 14], "redis": [15]}


def test_with_smt_the_servers_get_first_threads_of_distinct_physical_cores(monkeypatch):
    monkeypatch.setattr(scaling.os, "sched_getaffinity", lambda pid: set(range(16)))
    # cpus 2k and 2k + 1 are the two threads of physical core k
    monkeypatch.setattr(scaling, "sibling_rank", lambda cpu: cpu % 2)
    cores = scaling.layout(8, per_loadgen=3)
    assert cores["servers"] == [0, 2, 4, 6, 8, 10, 12, 14]
    assert cores["redis"] == [15]


def test_too_few_cores_pin_nothing(monkeypatch):
    monkeypatch.setattr(scaling.os, "sched_getaffinity", lambda pid: {0, 1})
    assert scaling.layout(2, per_loadgen=2) is None


def test_a_games_two_players_are_on_different_processes_and_every_process_has_players():
    urls = [f"http://127.0.0.1:{8001 + i}" for i in range(4)]
    made = [{"games": [10 * i, 10 * i + 1], "sessions": [f"s{i}a", f"s{i}b"]} for i in range(8)]
    slots = scaling.slots_of(made, lambda: ["a1"], urls)
    for slot in slots:
        target = loadgen.Target("tessera", urls).of(slot)
        first, last = target.socket_url(0, 1), target.socket_url(len(target.servers) - 1, 1)
        assert first != last
    movers = {slot.servers[0] for slot in slots} | {slot.servers[-1] for slot in slots}
    assert movers == set(urls)


def test_one_process_takes_both_players():
    slots = scaling.slots_of([{"games": [1], "sessions": ["a", "b"]}], lambda: ["a1"], ["http://x:1"])
    assert slots[0].servers == ["http://x:1", "http://x:1"]


def test_a_slot_without_processes_of_its_own_uses_the_targets():
    target = loadgen.Target("tessera", ["http://x:1", "http://x:2"])
    assert target.of(loadgen.Slot(rooms=[1], moves=[[]])) is target


def test_saturation_games_per_slot_grow_with_the_processes_sharing_the_load():
    sat = {"kind": "saturation", "games": 800, "think": 0.0}
    one = live_load.games_per_slot({**sat, "games": 100}, "tessera", 3, 10)
    eight = live_load.games_per_slot(sat, "tessera", 3, 10, processes=8)
    assert eight == one > live_load.games_per_slot(sat, "tessera", 3, 10)
