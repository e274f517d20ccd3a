"""Issue 21 items 21, 23 and 25 where the HTML shows them, through Django's test client: the
profile's games lead with their link, the Archive names sizes as the rest of the site does,
the leaderboard's empty state states its real rule, spectators are not offered to confirm
moves, dashboard rows of look-alike games differ, and every page has a meta description."""
import re
from html import unescape

import pytest

from play.clock import TimeControl
from tests.site.played import finished, start

pytestmark = pytest.mark.django_db


def page(client, path):
    response = client.get(path)
    assert response.status_code == 200, path
    return response.content.decode()


def rows(html, section):
    """The body rows of the table in the section with id `section`."""
    part = html.split(f'id="{section}"', 1)[1].split("</section>", 1)[0]
    return re.findall(r"<tr[^>]*>(.*?)</tr>", part.split("<tbody>", 1)[1], re.S)


# -- 21: the profile's games table leads with each game's link ---------------------------------

def test_profile_games_lead_with_their_link(client, alice, bob):
    playing = start(alice, bob, "hadron", {"size": 5})
    done = finished("copolymer", (alice, bob), {"size": 5}, resign_at=3)
    html = page(client, "/u/alice/")
    for section, game in (("games-in-progress", playing), ("finished-games", done)):
        (row,) = rows(html, section)
        first = re.match(r"\s*<t[hd][^>]*>(.*?)</t[hd]>", row, re.S)[1]
        assert f'href="{game.get_absolute_url()}"' in first, (section, row)
        # The link is the row's only way to its game; it names the opponent to a screen reader.
        assert row.count(game.get_absolute_url()) == 1
        assert "against bob" in first


# -- 23: the Archive's sizes, the leaderboard's rule, confirm moves, dashboard rows ------------

def test_archive_size_filter_names_sizes_as_the_site_does(client):
    html = page(client, "/archive/")
    select = html.split('name="size"', 1)[1].split("</select>", 1)[0]
    found = re.findall(r'value="(\d+)"[^>]*>([^<]*)<', select)
    options = {int(value): unescape(text) for value, text in found}
    assert options[3] == "hexhex side 3"
    assert options[5] == "hexhex side 5 or 5×5"
    assert options[13] == "13×13"
    # With a game chosen, its own words only.
    html = page(client, "/archive/?game=hadron")
    select = html.split('name="size"', 1)[1].split("</select>", 1)[0]
    assert re.search(r'value="7"[^>]*>7×7<', select)


def test_leaderboard_empty_state_says_the_real_rule(client):
    html = " ".join(page(client, "/leaderboard/hadron/").split())
    assert "play 5 rated games" not in html
    assert "no longer provisional" in html.split('class="card leaderboard"', 1)[1]


def test_confirm_moves_is_for_players_only(client, alice, bob, carol):
    game = start(alice, bob, "hadron", {"size": 5}, tc=TimeControl.correspondence(3))
    label = re.compile(r'<label class="tool" id="pref-confirm-label"( hidden)?>')
    client.force_login(alice)
    assert label.search(page(client, game.get_absolute_url()))[1] is None
    client.force_login(carol)
    assert label.search(page(client, game.get_absolute_url()))[1] == " hidden"
    client.logout()
    assert label.search(page(client, game.get_absolute_url()))[1] == " hidden"


def test_dashboard_rows_of_look_alike_games_differ(client, alice, bob):
    for _ in range(2):
        start(alice, bob, "hadron", {"size": 5})
        finished("hadron", (alice, bob), {"size": 5}, resign_at=2)
    client.force_login(alice)
    html = page(client, "/")

    def texts(list_html):
        items = re.findall(r"<li[^>]*>(.*?)</li>", list_html, re.S)
        return [" ".join(re.sub(r"<[^>]+>", " ", item).split()) for item in items]

    playing = texts(html.split('id="glance-playing"', 1)[1].split("</ul>", 1)[0])
    results = texts(html.split('id="results-title"', 1)[1].split("</ul>", 1)[0])
    assert len(playing) == 2 and len(set(playing)) == 2, playing
    assert len(results) == 2 and len(set(results)) == 2, results


# -- 25: every page says what it is to search engines and shared links ------------------------

def test_every_page_has_a_meta_description(client, alice, bob):
    playing = start(alice, bob, "hadron", {"size": 5})
    done = finished("tripen", (alice, bob), {"size": 5}, resign_at=4)
    paths = ["/", "/play/", "/watch/", "/archive/", playing.get_absolute_url(),
             done.get_absolute_url(), "/rules/", "/rules/copolymer/", "/rules/hadron/",
             "/rules/tripen/", "/rules/colorful/", "/u/alice/", "/leaderboard/",
             "/leaderboard/hadron/", "/accounts/login/", "/accounts/signup/",
             "/accounts/password/reset/"]
    signed_in = ["/", "/accounts/settings/", "/accounts/password/", "/play/challenges/"]
    seen = {}
    for path in paths:
        seen[path] = page(client, path)
    client.force_login(alice)
    for path in signed_in:
        seen[f"{path} (signed in)"] = page(client, path)
    descriptions = {}
    for path, html in seen.items():
        found = re.findall(r'<meta name="description" content="([^"]*)">', html)
        assert len(found) == 1, path
        assert len(unescape(found[0])) >= 50, (path, found)
        descriptions[path] = unescape(found[0])
    # Pages with their own subject say so.
    assert "alice" in descriptions[playing.get_absolute_url()]
    assert "Hadron" in descriptions["/rules/hadron/"]
    assert descriptions["/u/alice/"].startswith("alice")
