"""The home page's "Your games" for a logged-in player: games in progress (theirs to move
first, with clocks or deadlines), pending challenges, latest results with rating changes."""
import re
from datetime import timedelta

import pytest
from django.utils import timezone

from dashboard.glance import overview
from lobby import services as lobby
from play import services
from play.clock import TimeControl
from play.models import Game, awaiting

pytestmark = pytest.mark.django_db


def start(first, second, tc=None, rated=True, game="hadron"):
    return services.start_game(game=game, options={"size": 5} if game == "hadron" else {},
                               players=(first, second), rated=rated,
                               time_control=tc or TimeControl.untimed())


def test_visitors_see_no_dashboard(client):
    assert 'id="your-games"' not in client.get("/").content.decode()


def test_games_awaiting_the_players_move(alice, bob, carol):
    mine = start(alice, bob)                      # alice moves first
    theirs = start(bob, alice)                    # bob to move
    services.play(theirs.pk, bob, 0, "c3")        # now alice's
    other = start(bob, carol)                     # not alice's game
    done = start(alice, carol)
    services.resign(done.pk, alice, 0)
    assert [g.pk for g in awaiting(alice)] == [mine.pk, theirs.pk]
    assert [g.pk for g in awaiting(bob)] == [other.pk]
    assert awaiting(carol) == []


def test_the_home_page_lists_your_games_challenges_and_results(client, alice, bob, carol):
    realtime = start(alice, bob, tc=TimeControl.realtime(5, 3))
    post = start(carol, alice, tc=TimeControl.correspondence(3))  # carol to move
    casual = start(bob, alice, rated=False)
    services.play(casual.pk, bob, 0, "c3")                       # alice's move
    ended = start(alice, carol)
    services.resign(ended.pk, carol, 0)
    lobby.create_challenge(bob, opponent=alice, game="tripen", options={"size": 7},
                           time_control=TimeControl.untimed(), side="random", rated=False)

    client.force_login(alice)
    page = client.get("/").content.decode()
    glance = page[page.index('id="your-games"'):page.index('class="hero"')]
    assert "<strong>2</strong> await your move" in glance
    rows = re.findall(r'<li class="glance-game( your-turn)?" data-game-id="(\d+)"', glance)
    # Your move first, the one with a running clock before the untimed one; then the others.
    assert rows == [(" your-turn", str(realtime.pk)), (" your-turn", str(casual.pk)),
                    ("", str(post.pk))]
    assert re.search(r'data-ms="(29\d{4}|300000)" data-running title="your clock"', glance)
    assert "carol to move" in glance and "left)" in glance  # the correspondence deadline
    assert '<span class="mode mode-casual">casual</span>' in glance
    assert "<strong>bob</strong>" in glance and "challenges you" in glance and "Tripen" in glance
    assert re.search(r'<span class="result">Won</span>\s+Hadron', glance)
    change = ended.rating_changes.get(user=alice).change
    assert f'<span class="rating-change up">+{change}</span>' in glance


def test_overview_counts_only_games_in_progress(alice, bob):
    game = start(alice, bob)
    assert overview(alice)["your_turn"] == 1
    Game.objects.filter(pk=game.pk).update(status=Game.FINISHED, finished_at=timezone.now()
                                           - timedelta(minutes=1))
    assert overview(alice)["your_turn"] == 0 and overview(alice)["playing"] == []
