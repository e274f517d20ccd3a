"""Takebacks (play.takeback): consent, whole turns, lichess's two-turn case, clocks, refusals,
lapses, and no taken-back position served afterwards by any cache."""
import random
from datetime import timedelta

import pytest
from django.utils import timezone

import games
from archive import positions as archive_positions

from play import positions, services, takeback
from play.clock import TimeControl, clock_history
from play.models import Game
from play.services import PlayError
from tests.site.played import start

pytestmark = pytest.mark.django_db


def refresh(game):
    return services.load(game.pk)


def error_of(call, *args):
    with pytest.raises(PlayError) as caught:
        call(*args)
    return caught.value


def moves(game, *plays):
    """Play `(user, action)` pairs from the game's current ply."""
    for user, action in plays:
        services.play(game.pk, user, refresh(game).ply_count, action)


def take_back(game, proposer, accepter):
    ply = refresh(game).ply_count
    assert takeback.propose(game.pk, proposer, ply) == []
    assert takeback.accept(game.pk, accepter, ply) == []
    return refresh(game)


def replayed(game, actions):
    return games.get(game.game).replay(game.options, actions).to_dict()


# -- the rules ---------------------------------------------------------------------------------

def test_nothing_is_taken_back_without_the_opponents_consent(alice, bob, sent):
    game = start(alice, bob)
    moves(game, (alice, "c3"))
    with sent() as news:
        assert takeback.propose(game.pk, alice, 1) == []
    assert news == [(f"game-{game.pk}", {"type": "takeback_offered", "by": 0, "ply": 1,
                                         "back_to": 0})]
    game = refresh(game)
    assert (game.ply_count, game.takeback_offer, game.takebacks) == (1, 0, 0)
    assert services.snapshot_for(game.pk)["takeback"] == {"offered_by": 0, "ply": 1}
    with sent() as news:
        takeback.accept(game.pk, bob, 1)
    game = refresh(game)
    assert (game.ply_count, game.takeback_offer, game.takebacks) == (0, None, 1)
    assert not game.action_rows.exists()
    taken = [message for group, message in news if group == f"game-{game.pk}"]
    assert [m["type"] for m in taken] == ["taken_back"]
    assert taken[0]["ply"] == 0 and taken[0]["from_ply"] == 1 and taken[0]["by"] == 0
    assert taken[0]["accepted_by"] == 1 and taken[0]["takebacks"] == 1
    assert taken[0]["state"]["actions"] == [] and taken[0]["state"]["to_move"] == 0
    assert "viewbox" not in taken[0]["state"]["board"]  # lean, like `action`
    assert ("games", {"type": "games.changed", "game_id": game.pk, "event": "taken_back"}) in news


def test_the_opponents_reply_goes_too_so_that_it_is_the_proposers_turn(alice, bob):
    game = start(alice, bob)
    moves(game, (alice, "c3"), (bob, "a1"), (alice, "e5"), (bob, "a5"))
    # alice's turn: her last turn (ply 2) and bob's reply (ply 3) go.
    game = take_back(game, alice, bob)
    assert game.ply_count == 2 and game.player_to_move() == 0
    assert list(game.action_rows.values_list("action", flat=True)) == ["c3", "a1"]
    # alice's turn, bob proposes: his last turn (ply 1), alice's turn is not made yet.
    game = take_back(game, bob, alice)
    assert game.ply_count == 1 and game.player_to_move() == 1 and game.takebacks == 2
    assert game.state().to_dict() == replayed(game, ["c3"])


def test_copolymer_forced_claims_are_taken_back_whole(alice, bob):
    game = start(alice, bob, "copolymer", {"size": 4})
    rng = random.Random(4)
    # Play until a player has just finished a turn of several claims.
    while True:
        game = refresh(game)
        state = game.state()
        movers = takeback.movers_of(game)
        last = movers[-1] if movers else None
        run = len(movers) - (takeback.turn_start(movers, last) if movers else 0)
        if movers and run >= 2 and game.player_to_move() != last:
            break
        mover = game.players()[game.player_to_move()]
        services.play(game.pk, mover, state.ply, rng.choice(state.legal_actions()))
    before = list(state.actions)
    proposer, accepter = game.players()[last], game.players()[1 - last]
    game = take_back(game, proposer, accepter)
    assert game.ply_count == len(before) - run  # every claim of the turn, none before it
    assert game.player_to_move() == last
    assert game.state().to_dict() == replayed(game, before[:-run])


def test_colorfuls_two_stones_are_one_turn(alice, bob):
    game = start(alice, bob, "colorful", {"size": 3})
    moves(game, (alice, "R@A1"), (bob, "B@C3"), (bob, "G@E3"))
    assert takeback.movers_of(refresh(game)) == [0, 1, 1]
    # alice's turn: bob takes back both his stones.
    game = take_back(game, bob, alice)
    assert game.ply_count == 1 and game.player_to_move() == 1
    moves(game, (bob, "B@C3"), (bob, "G@E3"))
    # alice's turn, alice proposes: her first stone and bob's two stones go.
    game = take_back(game, alice, bob)
    assert game.ply_count == 0 and game.player_to_move() == 0 and game.takebacks == 2


def test_tripens_swap_is_a_turn_and_is_undone(alice, bob):
    game = start(alice, bob, "tripen", {"size": 5})
    moves(game, (alice, "c3/0"), (bob, "swap"))
    game = refresh(game)
    assert game.swapped and game.player_to_move() == 0
    assert takeback.movers_of(game) == [0, 1]
    game = take_back(game, bob, alice)
    assert game.ply_count == 1 and not game.swapped and game.player_to_move() == 1


def test_realtime_clocks_go_back_to_the_start_of_the_proposers_turn(alice, bob):
    game = start(alice, bob, tc=TimeControl.realtime(1, 2))
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(seconds=10))
    moves(game, (alice, "c3"))
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(seconds=5))
    moves(game, (bob, "a1"))
    at_alices_turn = refresh(game).remaining_ms
    assert 51_500 <= at_alices_turn[0] <= 52_000 and 56_500 <= at_alices_turn[1] <= 57_000
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(seconds=20))
    moves(game, (alice, "e5"))
    assert refresh(game).remaining_ms[0] < 35_000
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(seconds=7))
    accepted = timezone.now()
    game = take_back(game, alice, bob)
    # alice's time is what she had when her turn began; bob's 7 s are not charged either.
    assert game.remaining_ms == at_alices_turn
    assert game.running == 0 and game.turn_started_at >= accepted
    assert game.expires_at == game.turn_started_at + timedelta(milliseconds=at_alices_turn[0])
    # The clock history follows the history that stands.
    assert clock_history(game) == [[60_000, 60_000], *[
        list(left) for left in game.action_rows.values_list("remaining0_ms", "remaining1_ms")]]
    assert clock_history(game)[2] == at_alices_turn


def test_correspondence_gets_a_fresh_deadline(alice, bob):
    game = start(alice, bob, tc=TimeControl.correspondence(2))
    moves(game, (alice, "c3"))
    Game.objects.filter(pk=game.pk).update(turn_started_at=timezone.now() - timedelta(days=1))
    accepted = timezone.now()
    game = take_back(game, alice, bob)
    assert game.turn_started_at >= accepted
    assert game.deadline == game.turn_started_at + timedelta(days=2)


def test_taking_back_the_second_players_only_turn_allows_an_abort_again(alice, bob):
    game = start(alice, bob)
    moves(game, (alice, "c3"), (bob, "a1"))
    assert refresh(game).both_moved
    game = take_back(game, bob, alice)
    assert not game.both_moved
    services.abort(game.pk, alice, game.ply_count)
    assert refresh(game).status == "aborted"


# -- refusals ----------------------------------------------------------------------------------

def test_refusals(alice, bob, carol):
    game = start(alice, bob)
    no_turn = error_of(takeback.propose, game.pk, alice, 0)
    assert no_turn.code == "not_allowed" and "no turn" in no_turn.message
    moves(game, (alice, "c3"))
    assert error_of(takeback.propose, game.pk, bob, 1).code == "not_allowed"  # bob: no turn
    assert error_of(takeback.propose, game.pk, carol, 1).code == "not_a_player"
    assert error_of(takeback.propose, game.pk, alice, 0).code == "stale"
    assert error_of(takeback.accept, game.pk, bob, 1).code == "not_allowed"  # nothing proposed
    assert error_of(takeback.decline, game.pk, bob).code == "not_allowed"
    takeback.propose(game.pk, alice, 1)
    # A resend is a reminder to the sender alone.
    assert takeback.propose(game.pk, alice, 1) == [
        {"type": "takeback_offered", "by": 0, "ply": 1, "back_to": 0}]
    own = error_of(takeback.accept, game.pk, alice, 1)
    assert own.code == "not_allowed" and "consent" in own.message
    assert error_of(takeback.accept, game.pk, carol, 1).code == "not_a_player"
    stale = error_of(takeback.accept, game.pk, bob, 0)
    assert (stale.code, stale.snapshot) == ("stale", True)
    moves(game, (bob, "a1"))  # lapses alice's proposal
    takeback.propose(game.pk, bob, 2)
    assert error_of(takeback.propose, game.pk, alice, 2).code == "not_allowed"  # one at a time
    game = refresh(game)
    assert (game.ply_count, game.takebacks, game.takeback_offer) == (2, 0, 1)


def test_refused_once_the_game_is_over(alice, bob):
    game = start(alice, bob)
    moves(game, (alice, "c3"))
    takeback.propose(game.pk, alice, 1)
    services.resign(game.pk, bob, 1)
    game = refresh(game)
    assert game.takeback_offer is None  # the end lapsed it
    assert error_of(takeback.accept, game.pk, bob, 1).code == "game_over"
    assert error_of(takeback.propose, game.pk, alice, 1).code == "game_over"
    assert refresh(game).ply_count == 1


def test_a_move_lapses_the_proposal(alice, bob, sent):
    game = start(alice, bob)
    moves(game, (alice, "c3"), (bob, "a1"))
    takeback.propose(game.pk, alice, 2)
    with sent() as news:
        moves(game, (alice, "e5"))
    assert [m["type"] for group, m in news if group == f"game-{game.pk}"] == [
        "takeback_lapsed", "action"]
    assert refresh(game).takeback_offer is None
    assert error_of(takeback.accept, game.pk, bob, 2).code == "stale"
    assert error_of(takeback.accept, game.pk, bob, 3).code == "not_allowed"
    assert refresh(game).ply_count == 3


def test_decline_and_withdraw(alice, bob, sent):
    game = start(alice, bob)
    moves(game, (alice, "c3"))
    takeback.propose(game.pk, alice, 1)
    with sent() as news:
        takeback.decline(game.pk, bob)
    assert news == [(f"game-{game.pk}", {"type": "takeback_declined", "by": 1,
                                         "proposed_by": 0, "ply": 1})]
    takeback.propose(game.pk, alice, 1)
    takeback.decline(game.pk, alice)  # withdrawn
    game = refresh(game)
    assert (game.ply_count, game.takeback_offer) == (1, None)


# -- no cache serves a taken-back position ---------------------------------------------------

def test_another_move_at_the_same_ply_is_the_new_position(alice, bob, fresh_cache,
                                                          django_capture_on_commit_callbacks):
    game = start(alice, bob)
    with django_capture_on_commit_callbacks(execute=True):
        moves(game, (alice, "c3"))
    before = refresh(game)
    old = before.state()
    assert positions.states.get(positions.key(before, 1)) is old
    assert '"actions":["c3"]' in archive_positions.position_json(before, 1)
    with django_capture_on_commit_callbacks(execute=True):
        take_back(game, alice, bob)
        moves(game, (alice, "a1"))
    # Another process that never heard of the takeback still holds c3 for ply 1.
    positions.states.put(positions.key(before, 1), old)
    game = refresh(game)
    assert game.state().actions == ("a1",)
    assert services.snapshot_for(game.pk)["state"]["actions"] == ["a1"]
    assert archive_positions.state_at(game, 1).actions == ("a1",)
    text = archive_positions.position_json(game, 1)
    assert '"actions":["a1"]' in text
