"""The game page's chat as talk.services keeps it (no websocket here): what a line may be, the
rate limit, the room its author writes in, and which lines a viewer may read during and after
the game."""
from datetime import timedelta

import pytest
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from live.outbox import Outbox
from live.sockets import Refusal
from play import broadcast, services
from play.snapshots import snapshot
from talk import services as talk
from talk.models import ChatLine
from tests.site.played import start

pytestmark = pytest.mark.django_db


def refused(call, *args, **kwargs):
    with pytest.raises(Refusal) as caught:
        call(*args, **kwargs)
    return caught.value.code


def texts(lines):
    return [(line["author"], line["room"], line["text"]) for line in lines]


def resign(game, user):
    services.resign(game.pk, user, services.load(game.pk).ply_count)
    return services.load(game.pk)


# -- what a line may be ------------------------------------------------------------------------

def test_a_line_is_stripped_and_may_have_140_characters():
    assert talk.clean_text("  good move \t") == "good move"
    assert talk.clean_text(" " + "é" * 140 + "\n") == "é" * 140
    # Markup is text like any other: the page shows it as typed.
    assert talk.clean_text("<b>x</b>") == "<b>x</b>"
    assert talk.clean_text("gg 👍🏽") == "gg 👍🏽"
    # Invisible padding goes; what sits inside a visible line and emoji sequences stay.
    assert talk.clean_text("\u3164 gg \u2800\u200b") == "gg"
    assert talk.clean_text("\u2062❤️") == "❤️"
    assert talk.clean_text("👩\u200d💻") == "👩\u200d💻"
    assert talk.clean_text("e\u0301") == "e\u0301"


@pytest.mark.parametrize("value", [
    None, 12, True, ["hi"], {"text": "hi"},  # not text
    "", "   ", "\n\t",  # nothing once stripped
    "x" * 141, " " + "x" * 141 + " ",  # too long
    "two\nlines", "bell\x07", "nul\x00", "del\x7f", "c1\x85x",  # control characters
    "abc\u202edcba", "\u2066isolate",  # bidirectional overrides and isolates
    "lone \ud800 surrogate",  # not a character at all
    # Nothing visible: fillers, a blank Braille pattern, invisible operators, separators.
    "\u3164", "\u3164\u3164 \u3164", "\u2800\u2800", "\u2062", "\u180e", "\u200b\u2060",
    "\ufe0f", "\u0301", "\u115f\u1160", "\uffa0",
    "a\u200eb", "\u200fab", "x\u061c",  # bidirectional marks
    "one\u2028two", "one\u2029two", "\u2028",  # line and paragraph separators
])
def test_a_line_that_is_not_one_line_of_text_is_refused(value):
    assert refused(talk.clean_text, value) == "bad_message"


# -- rooms -------------------------------------------------------------------------------------

def test_players_write_in_the_players_room_and_anyone_else_in_the_spectators(alice, bob, carol):
    game = start(alice, bob)
    for user in (alice, bob, carol):
        assert talk.add_line(game.pk, user, f"hello from {user}") == []
    rows = list(ChatLine.objects.values_list("author__username", "room", "text", "ply"))
    assert rows == [("alice", "players", "hello from alice", 0),
                    ("bob", "players", "hello from bob", 0),
                    ("carol", "spectators", "hello from carol", 0)]


def test_a_visitor_who_is_not_logged_in_cannot_write(alice, bob):
    game = start(alice, bob)
    assert refused(talk.add_line, game.pk, AnonymousUser(), "hi") == "login_required"
    assert not ChatLine.objects.exists()


def test_a_line_remembers_the_ply_it_was_written_at(alice, bob):
    game = start(alice, bob, "hadron", {"size": 5})
    services.play(game.pk, alice, 0, "c3")
    talk.add_line(game.pk, bob, "nice")
    assert ChatLine.objects.get().ply == 1


# -- the rate limit ----------------------------------------------------------------------------

def test_five_lines_at_once_then_the_sixth_waits(alice, bob, carol):
    game, other = start(alice, bob), start(alice, carol)
    now = timezone.now()
    for n in range(talk.BURST):
        talk.add_line(game.pk, alice, f"line {n}", now=now + timedelta(milliseconds=n))
    assert refused(talk.add_line, game.pk, alice, "one too many",
                   now=now + timedelta(seconds=1)) == "chat_rate_limited"
    assert ChatLine.objects.filter(author=alice).count() == talk.BURST
    # Per author and per game: bob, and alice in another game, are not held up.
    talk.add_line(game.pk, bob, "my turn", now=now + timedelta(seconds=1))
    talk.add_line(other.pk, alice, "elsewhere", now=now + timedelta(seconds=1))
    # Once the first line is a whole window old, one more may go.
    later = now + talk.WINDOW + timedelta(microseconds=500)
    talk.add_line(game.pk, alice, "again", now=later)
    assert refused(talk.add_line, game.pk, alice, "and again", now=later) == "chat_rate_limited"
    assert ChatLine.objects.filter(game=game, author=alice).count() == talk.BURST + 1


def test_one_line_every_two_seconds_goes_on_for_ever(alice, bob):
    game = start(alice, bob)
    now = timezone.now()
    step = talk.WINDOW / talk.BURST
    for n in range(4 * talk.BURST):
        talk.add_line(game.pk, alice, f"line {n}", now=now + n * step)
    assert ChatLine.objects.count() == 4 * talk.BURST


# -- what a viewer may read --------------------------------------------------------------------

def test_during_the_game_each_side_reads_its_own_room_only(alice, bob, carol, django_user_model):
    game = start(alice, bob)
    dave = django_user_model.objects.create_user("dave")
    talk.add_line(game.pk, alice, "good luck")
    talk.add_line(game.pk, carol, "alice is lost")
    talk.add_line(game.pk, bob, "you too")
    talk.add_line(game.pk, dave, "no, bob is")
    game = services.load(game.pk)
    players_room = [("alice", "players", "good luck"), ("bob", "players", "you too")]
    spectators_room = [("carol", "spectators", "alice is lost"), ("dave", "spectators", "no, bob is")]
    assert texts(talk.lines_for(game, alice)) == players_room
    assert texts(talk.lines_for(game, bob)) == players_room
    assert texts(talk.lines_for(game, carol)) == spectators_room
    assert texts(talk.lines_for(game, AnonymousUser())) == spectators_room
    assert texts(talk.lines_for(game, None)) == spectators_room


def test_after_the_end_everyone_reads_both_rooms_in_order(alice, bob, carol):
    game = start(alice, bob)
    talk.add_line(game.pk, alice, "good luck")
    talk.add_line(game.pk, carol, "alice is lost")
    game = resign(game, alice)
    talk.add_line(game.pk, bob, "gg")
    both = [("alice", "players", "good luck"), ("carol", "spectators", "alice is lost"),
            ("bob", "players", "gg")]
    for viewer in (alice, bob, carol, AnonymousUser()):
        assert texts(talk.lines_for(game, viewer)) == both
    line = talk.lines_for(game, carol)[-1]
    assert set(line) == {"id", "author", "room", "text", "time", "ply"}


def test_a_snapshot_carries_the_last_hundred_lines_the_viewer_may_read(alice, bob, carol):
    game = start(alice, bob)
    now = timezone.now() - timedelta(days=1)
    # Written a window apart, so that the rate limit lets every one of them in.
    for n in range(talk.HISTORY + 5):
        talk.add_line(game.pk, carol, f"spectator {n}", now=now + n * talk.WINDOW)
    talk.add_line(game.pk, alice, "players only")
    game = services.load(game.pk)
    seen = snapshot(game, carol)["chat"]
    assert len(seen) == talk.HISTORY
    assert [line["text"] for line in seen[:2]] == ["spectator 5", "spectator 6"]
    assert seen[-1]["text"] == f"spectator {talk.HISTORY + 4}"
    assert texts(snapshot(game, alice)["chat"]) == [("alice", "players", "players only")]


# -- who hears the news ------------------------------------------------------------------------

def news_of(call, django_capture_on_commit_callbacks):
    """The channel-layer events `call` queues once its transaction commits."""
    with Outbox() as outbox, django_capture_on_commit_callbacks(execute=True):
        call()
    return outbox.events


def test_a_line_is_news_for_its_room_during_the_game_and_for_everyone_after(
        alice, bob, carol, django_capture_on_commit_callbacks):
    game = start(alice, bob)
    heard = {}
    for user in (alice, carol):
        ((group, event),) = news_of(lambda: talk.add_line(game.pk, user, "<b>x</b>"),
                                    django_capture_on_commit_callbacks)
        assert group == f"game-{game.pk}"
        heard[user.username] = event["audience"]
    assert heard == {"alice": "players", "carol": "spectators"}
    resign(game, bob)
    ((_, event),) = news_of(lambda: talk.add_line(game.pk, carol, "well played"),
                            django_capture_on_commit_callbacks)
    assert event["audience"] == "everyone"
    assert '"room":"spectators"' in event["text"] and '"text":"well played"' in event["text"]


def test_a_refused_line_is_no_news(alice, bob, django_capture_on_commit_callbacks):
    game = start(alice, bob)
    now = timezone.now()
    for n in range(talk.BURST):
        talk.add_line(game.pk, alice, "spam", now=now)
    assert news_of(lambda: refused(talk.add_line, game.pk, alice, "spam", now=now),
                   django_capture_on_commit_callbacks) == []


@pytest.mark.parametrize("audience, is_player, hears", [
    ("players", True, True), ("players", False, False), ("players", None, False),
    ("spectators", True, False), ("spectators", False, True), ("spectators", None, False),
    ("everyone", True, True), ("everyone", False, True), ("everyone", None, True),
])
def test_which_sockets_hear_a_line(audience, is_player, hears):
    assert broadcast.hears(audience, is_player) is hears
