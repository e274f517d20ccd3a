"""The game page's picture and move list (archive.templatetags.replay) are drawn once per
position and kept: a finished game's page and its ?ply=N pages draw nothing on a repeated
view, and a game in progress is drawn again when it moves or takes a move back."""
import re

import pytest

from archive.templatetags import replay
from play.models import Action, Game
from tests.site.played import finished, play_out, start

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]


def drawings(response):
    """The page's picture and move list (the rest carries per-request tokens)."""
    html = response.content.decode()
    return (re.search(r'id="board-picture">.*?</div>', html, re.S).group(),
            re.search(r'<ol class="move-list" id="moves">.*?</ol>', html, re.S).group())


@pytest.fixture
def drawn(monkeypatch):
    """Each board the page draws, counted."""
    calls = []
    original = replay.svg.render
    monkeypatch.setattr(replay.svg, "render", lambda *a, **k: calls.append(1) or original(*a, **k))
    return calls


@pytest.fixture
def moves_listed(monkeypatch):
    calls = []
    original = replay.turns_of
    monkeypatch.setattr(replay, "turns_of", lambda *a: calls.append(1) or original(*a))
    return calls


def test_a_finished_games_pages_are_drawn_once(client, users, drawn, moves_listed):
    game = finished("hadron", users("alice", "bob"), {"size": 5}, seed=1)
    for path in (game.get_absolute_url(), f"{game.get_absolute_url()}?ply=5"):
        first = drawings(client.get(path))
        assert drawings(client.get(path)) == first and "<svg" in first[0]
    # One picture and one move list for each of the two positions shown.
    assert len(drawn) == 2 and len(moves_listed) == 2


def test_a_game_in_progress_is_drawn_again_after_a_move_or_a_takeback(client, users, drawn):
    game = play_out(start(*users("alice", "bob"), "hadron", {"size": 5}), stop_at=2)
    url = game.get_absolute_url()
    client.get(url)
    play_out(game, seed=3, stop_at=3)
    html = client.get(url).content.decode()
    assert len(drawn) == 2 and 'href="?ply=3"' in html
    # Another process took the last move back and another was played: same length, other
    # history (the takebacks count is in the key).
    last = Action.objects.get(game=game, ply=2)
    other = next(a for a in Game.objects.get(pk=game.pk).state().legal_actions()
                 if a != last.action)
    Action.objects.filter(pk=last.pk).update(action=other)
    Game.objects.filter(pk=game.pk).update(takebacks=1)
    client.get(url)
    assert len(drawn) == 3
