"""The game page as a browser without JavaScript reads it: `?ply=K` draws the position after K
actions, and the page around the board says that position's tallies, where the board stands
and, at the end, why the game ended (issue 21, item 19: it showed the final tallies and no
"after action K")."""
import re

import pytest

from tests.site.played import finished, play_out, start

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]


def cards(html):
    """Each player card's name and tally, in page order."""
    return re.findall(r'<a class="name"[^>]*>([^<]+)</a>.*?<span class="extra">([^<]*)</span>',
                      html, re.S)


def test_an_earlier_ply_shows_its_own_tallies_and_says_where_it_is(client, alice, bob):
    game = finished("copolymer", (alice, bob), {"size": 5}, seed=2)
    html = client.get(f"/game/{game.pk}/?ply=3").content.decode()
    state = game.engine.replay(game.options, game.action_list()[:3]).to_dict()
    # alice moved first: side 0 (no swap in Copolymer).
    assert cards(html) == [("alice", state["tallies"][0]), ("bob", state["tallies"][1])]
    final = game.state().to_dict()["tallies"]
    assert state["tallies"] != final
    shown = re.search(r'id="banner-shown">([^<]*)<', html)[1]
    assert shown == (f"The board shows an earlier position: After action 3 of {game.ply_count}"
                     f" · {state['prompt']}.")
    assert re.search(r'<p class="ending-caption" id="ending-caption" hidden></p>', html)


def test_the_latest_ply_shows_the_final_tallies_and_why_it_ended(client, alice, bob):
    game = finished("copolymer", (alice, bob), {"size": 5}, seed=2)
    state = game.state().to_dict()
    for url in (f"/game/{game.pk}/", f"/game/{game.pk}/?ply={game.ply_count}"):
        html = client.get(url).content.decode()
        assert cards(html) == [("alice", state["tallies"][0]), ("bob", state["tallies"][1])]
        assert 'id="banner-shown"></p>' in html
        caption = re.search(r'id="ending-caption">([^<]*)</p>', html)[1]
        assert caption == state["ending"]["caption"]


def test_a_game_in_progress_at_an_earlier_ply_says_so_in_the_prompt(client, alice, bob):
    game = play_out(start(alice, bob, "hadron", {"size": 5}), seed=4, stop_at=6)
    html = client.get(f"/game/{game.pk}/?ply=0").content.decode()
    prompt = re.search(r'id="prompt" aria-live="polite">([^<]*)<', html)[1]
    assert prompt.startswith("Start of the game · ")
    assert 'id="prompt-who">Replay<' in html
    assert cards(html) == [("alice", "0 tiles"), ("bob", "0 tiles")]
