"""Premoves (play.premoves): queued while the opponent is to move, played by the server through
the same step as a person's move when the turn passes, dropped with a reason when illegal."""
from datetime import timedelta

import pytest
from django.utils import timezone

from play import premoves, services
from play.clock import TimeControl
from play.models import Game, Premove
from play.services import PlayError
from play.snapshots import snapshot
from tests.site.played import start

pytestmark = pytest.mark.django_db


def refresh(game):
    return Game.objects.get(pk=game.pk)


def code_of(call, *args, **kwargs):
    with pytest.raises(PlayError) as caught:
        call(*args, **kwargs)
    return caught.value.code


def hadron(alice, bob, tc=None):
    return start(alice, bob, "hadron", {"size": 5}, tc or TimeControl.realtime(5, 0))


def test_premove_played_when_the_opponent_moves_and_charged_the_minimum(alice, bob):
    game = hadron(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    premoves.queue(game.pk, alice, 1, ["a1"])
    assert snapshot(refresh(game), alice)["premove"] == {"ply": 1, "actions": ["a1"]}
    # Never shown to the opponent nor to spectators.
    assert snapshot(refresh(game), bob)["premove"] is None
    assert snapshot(refresh(game), None)["premove"] is None
    moved = timezone.now()
    before = refresh(game).remaining_ms[0]
    services.play(game.pk, bob, 1, "e5", now=moved)
    game = refresh(game)
    assert game.action_list() == ["c3", "e5", "a1"]
    assert game.remaining_ms[0] == before - premoves.PREMOVE_CHARGE_MS
    assert game.turn_started_at == moved + timedelta(milliseconds=premoves.PREMOVE_CHARGE_MS)
    assert not Premove.objects.exists()
    assert snapshot(game, alice)["premove"] is None


def test_illegal_premove_dropped_and_the_opponent_move_kept(alice, bob):
    game = hadron(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    premoves.queue(game.pk, alice, 1, ["e5"])
    services.play(game.pk, bob, 1, "e5")  # takes the cell the premove wanted
    game = refresh(game)
    assert game.action_list() == ["c3", "e5"] and game.player_to_move() == 0
    assert not Premove.objects.exists()


def test_colorful_premove_of_a_whole_turn(alice, bob):
    game = start(alice, bob, "colorful", {"size": 4}, TimeControl.realtime(5, 0))
    premoves.queue(game.pk, bob, 0, ["B@A2", "G@A3"])
    services.play(game.pk, alice, 0, "R@A1")
    game = refresh(game)
    assert game.action_list() == ["R@A1", "B@A2", "G@A3"] and game.player_to_move() == 0
    # A turn that would not fit (the second stone on an occupied cell) plays nothing.
    premoves.queue(game.pk, bob, 3, ["B@B1", "G@A1"])
    services.play(game.pk, alice, 3, "R@B2")
    services.play(game.pk, alice, 4, "P@B3")
    game = refresh(game)
    assert game.action_list() == ["R@A1", "B@A2", "G@A3", "R@B2", "P@B3"]
    assert game.player_to_move() == 1 and not Premove.objects.exists()


@pytest.mark.parametrize("case, code", [
    ("own_turn", "your_turn"), ("finished", "game_over"), ("spectator", "not_a_player"),
    ("correspondence", "not_realtime"), ("garbage", "illegal"), ("stale_ply", "stale"),
    ("too_many", "illegal"),
])
def test_bad_premoves_refused_and_nothing_stored(alice, bob, django_user_model, case, code):
    carol = django_user_model.objects.create_user("carol")
    tc = TimeControl.correspondence(3) if case == "correspondence" else None
    game = hadron(alice, bob, tc)
    services.play(game.pk, alice, 0, "c3")
    if case == "finished":
        services.resign(game.pk, bob, 1)
    user, ply, actions = {
        "own_turn": (bob, 1, ["a1"]), "spectator": (carol, 1, ["a1"]),
        "garbage": (alice, 1, ["zz99"]), "stale_ply": (alice, 0, ["a1"]),
        "too_many": (alice, 1, ["a1"] * 9),
    }.get(case, (alice, 1, ["a1"]))
    assert code_of(premoves.queue, game.pk, user, ply, actions) == code
    assert not Premove.objects.exists()


def test_cancel_and_takeback_drop_it(alice, bob):
    game = hadron(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    premoves.queue(game.pk, alice, 1, ["a1"])
    premoves.cancel(game.pk, alice)
    services.play(game.pk, bob, 1, "e5")
    assert refresh(game).action_list() == ["c3", "e5"]
    # Queued, then the position changes under it (a takeback): dropped, not played.
    premoves.queue(game.pk, bob, 2, ["e1"])
    Premove.objects.update(takebacks=5)
    services.play(game.pk, alice, 2, "a1")
    assert refresh(game).action_list() == ["c3", "e5", "a1"]
    assert not Premove.objects.exists() and not refresh(game).premove_waiting


def test_a_premove_that_would_flag_is_dropped(alice, bob):
    game = hadron(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    premoves.queue(game.pk, alice, 1, ["a1"])
    Game.objects.filter(pk=game.pk).update(remaining0_ms=premoves.PREMOVE_CHARGE_MS // 2)
    services.play(game.pk, bob, 1, "e5")
    game = refresh(game)
    assert game.action_list() == ["c3", "e5"] and game.player_to_move() == 0


def test_a_played_premove_costs_two_statements(alice, bob):
    """The premoves taken in one DELETE ... RETURNING, then the premove's action stored as any
    (the flag on the game row written with it); a move with nothing queued reads nothing more
    (tests/site/test_play_services.py counts its statements)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    game = hadron(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    premoves.queue(game.pk, alice, 1, ["a1"])
    with CaptureQueriesContext(connection) as move:
        services.play(game.pk, bob, 1, "e5")
    sent = [query["sql"].split()[0] for query in move.captured_queries
            if not query["sql"].startswith(("SAVEPOINT", "RELEASE SAVEPOINT"))]
    if connection.vendor == "postgresql":
        assert sent == ["SELECT", "WITH", "DELETE", "WITH"], sent
    else:
        assert sent == ["SELECT", "INSERT", "UPDATE", "DELETE", "INSERT", "UPDATE"], sent
    game = refresh(game)
    assert game.action_list() == ["c3", "e5", "a1"] and not game.premove_waiting


def test_premove_against_the_computer_played_on_its_answer(alice, django_capture_on_commit_callbacks):
    """The computer's answer comes through services.play like anyone's: the person's premove
    follows it at once, and the computer is asked once for its next turn."""
    from bots import accounts
    from jobs import runner as jobs

    computer = accounts.bot_for(1)
    game = start(alice, computer, "hadron", {"size": 5}, TimeControl.realtime(5, 0))
    submitted = []
    real_submit = jobs.submit

    def counting(kind, payload, *args, **kwargs):
        submitted.append((kind, payload["ply"]))
        # The computer's seed comes from the game's id, which differs from run to run: with
        # some ids it answered on or next to the premove's a1 (a1, a2), which made a1 illegal and
        # the premove rightly dropped. One seed, one answer, away from a1.
        return real_submit(kind, {**payload, "seed": 2}, *args, **kwargs)

    import bots.moves
    bots.moves.submit, saved = counting, bots.moves.submit
    try:
        services.play(game.pk, alice, 0, "c3")  # the computer's job waits: hooks not run
        state = refresh(game).state()
        mine = next(a for a in state.legal_actions() if a != "c3")
        premoves.queue(game.pk, alice, 1, [mine])
        with django_capture_on_commit_callbacks(execute=True):
            bots.moves.on_game_changed(Game, refresh(game), "action")
    finally:
        bots.moves.submit = saved
    game = refresh(game)
    actions = game.action_list()
    assert len(actions) >= 3 and actions[0] == "c3" and actions[2] == mine
    assert game.action_rows.get(ply=2).player == 0
    # Asked for ply 1 and then for ply 3 (after the premove), never twice for one ply.
    plies = [ply for kind, ply in submitted if kind == "bot_move"]
    assert plies[:2] == [1, 3] and len(plies) == len(set(plies))


def test_an_accepted_takeback_drops_the_premove(alice, bob):
    from play import takeback

    game = hadron(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    services.play(game.pk, bob, 1, "e5")
    services.play(game.pk, alice, 2, "a1")
    premoves.queue(game.pk, alice, 3, ["e1"])
    takeback.propose(game.pk, bob, 3)
    takeback.accept(game.pk, alice, 3)  # bob's turn again: his e5 and her a1 go back
    game = refresh(game)
    assert game.action_list() == ["c3"] and not game.premove_waiting
    assert not Premove.objects.exists() and snapshot(game, alice)["premove"] is None
