"""Conditional moves (play.conditionals): lines checked by the engine when saved, played by the
server through the same step as a person's move when the opponent's turn matches, discarded
by a turn off every line and by a takeback, private to their owner."""
import re

import pytest

from archive.exports import record_text
from games import get
from play import conditionals, services, takeback
from play.clock import TimeControl
from play.conditionals import checked_tree
from play.models import Conditional, Game
from play.services import PlayError
from play.snapshots import snapshot
from tests.site.played import start

pytestmark = pytest.mark.django_db


def refresh(game):
    return Game.objects.get(pk=game.pk)


def refusal(call, *args, **kwargs):
    with pytest.raises(PlayError) as caught:
        call(*args, **kwargs)
    return caught.value.code, caught.value.message


def hadron(alice, bob, tc=None):
    return start(alice, bob, "hadron", {"size": 5}, tc or TimeControl.correspondence(3))


# -- the tree, on the engine alone -----------------------------------------------------------------

def position(name, options, *actions):
    engine = get(name)
    return engine.replay(engine.normalize_options(**options), list(actions))


@pytest.mark.django_db(False)
def test_lines_sharing_a_beginning_share_a_branch_and_come_back_canonical():
    state = position("hadron", {"size": 5}, "c3")
    tree = checked_tree(Game(), state, 0, [[["E5"], ["a1"], ["e1"], ["a5"]],
                                           [["e5"], ["a1"], ["b4"], ["d2"]],
                                           [["a2"], ["e4"]]])
    assert tree == [
        {"if": ["e5"], "play": ["a1"], "then": [{"if": ["e1"], "play": ["a5"], "then": []},
                                                {"if": ["b4"], "play": ["d2"], "then": []}]},
        {"if": ["a2"], "play": ["e4"], "then": []}]
    assert Conditional(tree=tree).lines() == [[["e5"], ["a1"], ["e1"], ["a5"]],
                                              [["e5"], ["a1"], ["b4"], ["d2"]],
                                              [["a2"], ["e4"]]]


@pytest.mark.django_db(False)
@pytest.mark.parametrize("lines, code, words", [
    ([[["c3"], ["a1"]]], "illegal", "line 1, turn 1 (their): c3"),            # occupied
    ([[["e5"], ["e5"]]], "illegal", "line 1, turn 2 (your): e5"),             # taken by them
    ([[["e5"], ["a1"]], [["e5"], ["a2"]]], "illegal", "two different replies"),
    ([[["e5"]]], "bad_message", "pairs of turns"),                             # no reply
    ([[["e5"], ["a1"]] * 9], "too_large", "1 to 8 pairs"),
    ([[["e5"], ["a1"]]] * 17, "too_large", "1 to 16 lines"),
    ([[["e5", "a1"], ["b1"]]], "illegal", "the turn is over before a1"),
    ([[[5], ["a1"]]], "bad_message", "an action is text"),
])
def test_bad_lines_are_refused_with_the_reason(lines, code, words):
    state = position("hadron", {"size": 5}, "c3")
    with pytest.raises(PlayError) as caught:
        checked_tree(Game(), state, 0, lines)
    assert caught.value.code == code and words in caught.value.message


@pytest.mark.django_db(False)
def test_colorful_turns_of_two_stones_must_be_whole():
    state = position("colorful", {"size": 4}, "R@A1")
    tree = checked_tree(Game(), state, 0, [[["b@a2", "g@a3"], ["R@B1", "P@B2"]]])
    assert tree[0]["if"] == ["B@A2", "G@A3"]
    with pytest.raises(PlayError) as caught:
        checked_tree(Game(), state, 0, [[["B@A2"], ["R@B1", "P@B2"]]])
    assert "the turn is not over after B@A2" in caught.value.message


@pytest.mark.django_db(False)
def test_a_line_of_actions_one_after_the_other_is_cut_into_turns():
    state = position("colorful", {"size": 4}, "R@A1")
    tree = checked_tree(Game(), state, 0, [["B@A2", "G@A3", "R@B1", "P@B2"]])
    assert Conditional(tree=tree).lines() == [[["B@A2", "G@A3"], ["R@B1", "P@B2"]]]
    for line, words in (([["B@A2", "G@A3"]], "ends with their turn"),
                        ([["B@A2", "G@A3", "R@B1"]], "the last turn is not over after R@B1"),
                        ([["B@A2", "B@A3"]], "line 1: B@A3")):
        with pytest.raises(PlayError) as caught:
            checked_tree(Game(), state, 0, line)
        assert caught.value.code == "illegal" and words in caught.value.message


# -- through play's services -----------------------------------------------------------------------

def test_a_line_plays_itself_through_several_moves_and_is_private(alice, bob, django_user_model):
    carol = django_user_model.objects.create_user("carol", password="pw")
    game = hadron(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    conditionals.save(game.pk, alice, 1, [[["e5"], ["a1"], ["e1"], ["a5"]],
                                          [["a2"], ["e4"]]])
    lines = [[["e5"], ["a1"], ["e1"], ["a5"]], [["a2"], ["e4"]]]
    assert snapshot(refresh(game), alice)["conditions"] == {"ply": 1, "lines": lines}
    for viewer in (bob, carol, None):
        assert snapshot(refresh(game), viewer)["conditions"] is None
    services.play(game.pk, bob, 1, "e5")
    game = refresh(game)
    assert game.action_list() == ["c3", "e5", "a1"] and game.player_to_move() == 1
    assert game.conditions_waiting
    assert snapshot(game, alice)["conditions"] == {"ply": 3, "lines": [[["e1"], ["a5"]]]}
    services.play(game.pk, bob, 3, "e1")
    game = refresh(game)
    assert game.action_list() == ["c3", "e5", "a1", "e1", "a5"]
    assert not Conditional.objects.exists() and not game.conditions_waiting
    assert snapshot(game, alice)["conditions"] is None
    # The record shows the actions as played, marking those a condition played.
    assert '[ConditionalMoves "3 5"]' in record_text(game, "https://tessera.example/")
    # So do the game page's move lists: the snapshot (anyone's) and the list the server writes.
    for viewer in (alice, bob, carol, None):
        assert snapshot(game, viewer)["by_condition"] == [3, 5]


def test_the_move_list_marks_what_a_condition_played(client, alice, bob):
    game = hadron(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    conditionals.save(game.pk, alice, 1, [[["e5"], ["a1"]]])
    services.play(game.pk, bob, 1, "e5")
    page = client.get(refresh(game).get_absolute_url()).content.decode()
    marked = re.findall(r'<a class="act[^"]*by-condition"[^>]*data-ply="(\d+)"[^>]*title="([^"]+)"',
                        page)
    assert [ply for ply, _ in marked] == ["3"]
    assert marked[0][1].startswith("Played by a conditional move")
    assert len(re.findall(r'class="act[^"]*by-condition', page)) == 1
    assert snapshot(refresh(game), bob)["by_condition"] == [3]
    # A takeback that removes the reply takes its mark with it.
    takeback.propose(game.pk, bob, 3)
    takeback.accept(game.pk, alice, 3)
    game = refresh(game)
    assert game.ply_count < 3 and snapshot(game, bob)["by_condition"] == []
    assert "by-condition" not in client.get(game.get_absolute_url()).content.decode()


def test_a_turn_off_every_line_discards_the_tree(alice, bob):
    game = hadron(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    conditionals.save(game.pk, alice, 1, [[["e5"], ["a1"]]])
    services.play(game.pk, bob, 1, "a5")
    game = refresh(game)
    assert game.action_list() == ["c3", "a5"] and game.player_to_move() == 0
    assert not Conditional.objects.exists() and not game.conditions_waiting


def test_a_takeback_discards_the_tree(alice, bob):
    game = hadron(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    services.play(game.pk, bob, 1, "e5")
    conditionals.save(game.pk, bob, 2, [[["a1"], ["e1"]]])
    takeback.propose(game.pk, alice, 2)
    takeback.accept(game.pk, bob, 2)
    game = refresh(game)
    assert game.ply_count < 2 and not Conditional.objects.exists()
    assert not game.conditions_waiting


def test_colorful_reply_of_two_stones(alice, bob):
    game = start(alice, bob, "colorful", {"size": 4}, TimeControl.correspondence(3))
    conditionals.save(game.pk, bob, 0, [[["R@A1"], ["B@A2", "G@A3"]]])
    services.play(game.pk, alice, 0, "R@A1")
    game = refresh(game)
    assert game.action_list() == ["R@A1", "B@A2", "G@A3"] and game.player_to_move() == 0


@pytest.mark.parametrize("case, code", [
    ("own_turn", "your_turn"), ("finished", "game_over"), ("spectator", "not_a_player"),
    ("realtime", "not_correspondence"), ("illegal", "illegal"), ("stale_ply", "stale"),
])
def test_refused_and_nothing_stored(alice, bob, django_user_model, case, code):
    game = hadron(alice, bob, TimeControl.realtime(5, 0) if case == "realtime" else None)
    services.play(game.pk, alice, 0, "c3")
    user, ply, lines = alice, 1, [[["e5"], ["a1"]]]
    if case == "own_turn":
        user = bob
    elif case == "finished":
        services.resign(game.pk, bob, 1)
    elif case == "spectator":
        user = django_user_model.objects.create_user("carol", password="pw")
    elif case == "illegal":
        lines = [[["e5"], ["c3"]]]
    elif case == "stale_ply":
        ply = 0
    assert refusal(conditionals.save, game.pk, user, ply, lines)[0] == code
    assert not Conditional.objects.exists() and not refresh(game).conditions_waiting


def test_clear(alice, bob):
    game = hadron(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    conditionals.save(game.pk, alice, 1, [[["e5"], ["a1"]]])
    conditionals.clear(game.pk, alice)
    assert not Conditional.objects.exists() and not refresh(game).conditions_waiting
    services.play(game.pk, bob, 1, "e5")
    assert refresh(game).action_list() == ["c3", "e5"]


def test_mail_counts_only_turns_really_waiting(alice, bob, django_capture_on_commit_callbacks):
    """A reply played by a condition passes the turn straight back: its owner is not mailed
    that it is their move; the opponent is."""
    from notifications.models import PendingMail
    from tests.site.test_mail_notices import wants_mail

    wants_mail(alice, "alice@example.org", mail_on_move=True)
    wants_mail(bob, "bob@example.org", mail_on_move=True)
    game = hadron(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    PendingMail.objects.all().delete()
    conditionals.save(game.pk, alice, 1, [[["e5"], ["a1"]]])
    with django_capture_on_commit_callbacks(execute=True):
        services.play(game.pk, bob, 1, "e5")
    assert refresh(game).action_list() == ["c3", "e5", "a1"]
    assert list(PendingMail.objects.values_list("recipient__username", flat=True)) == ["bob"]
