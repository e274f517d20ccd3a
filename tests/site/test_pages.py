import re

import pytest
from django.urls import reverse

import games

pytestmark = pytest.mark.django_db


def test_home_describes_the_four_games_and_links_to_play_and_rules(client):
    page = client.get("/").content.decode()
    for title in ["Copolymer", "Hadron", "Tripen", "Colorful Connection"]:
        assert title in page
    for name in games.names():
        assert reverse("rules:game", args=[name]) in page
    assert 'href="/play/"' in page and 'href="/rules/"' in page
    assert page.count("<svg") == 4


def test_navigation_has_play_watch_archive_rules(client):
    page = client.get(reverse("rules:index")).content.decode()
    for path in ["/play/", "/watch/", "/archive/", "/rules/"]:
        assert f'href="{path}"' in page
    assert 'href="/rules/" aria-current="page"' in page


def test_navigation_leads_to_tournaments_and_lessons_on_every_width(client):
    page = client.get(reverse("home")).content.decode()
    wide = page.split('<nav class="main-nav"', 1)[1].split("</nav>", 1)[0]
    phone = page.split('<div class="account-nav">', 1)[1].split("</div>", 1)[0]
    for path in ["/tournaments/", "/learn/"]:
        assert f'href="{path}"' in wide and f'href="{path}"' in phone


def test_rules_index_links_every_game(client):
    page = client.get(reverse("rules:index")).content.decode()
    for name in games.names():
        assert f"/rules/{name}/" in page


RULINGS = {"copolymer": 4, "hadron": 2, "colorful": 5, "tripen": 5}


@pytest.mark.parametrize("name", games.names())
def test_rules_page_has_rulings_notation_credits_and_every_board(client, name):
    response = client.get(reverse("rules:game", args=[name]))
    assert response.status_code == 200
    page = response.content.decode()
    assert page.count('<span class="badge">Ruling</span>') == RULINGS[name]
    assert 'id="notation"' in page and 'id="credits"' in page
    designer = games.get(name).designer
    assert designer in page
    boards = re.findall(r'<figure class="diagram" id="board-([\w-]+)"[^>]*?( hidden)?>\s*<svg', page)
    sizes = games.get(name).option_choices()["size"]
    assert len(boards) == len(sizes) + (3 if name == "colorful" else 0)   # + long 4..6
    shown = [key for key, hidden in boards if not hidden]
    assert shown == [f"{games.get(name).defaults.get('board', 'size')}-{games.get(name).defaults['size']}"]


def test_tripen_rules_show_the_six_poses(client):
    page = client.get(reverse("rules:game", args=["tripen"])).content.decode()
    chart = page[page.index("boardsvg-poses"):]
    chart = chart[:chart.index("</svg>")]
    assert [f"a1/{k}" for k in range(6)] == re.findall(r'data-action="(a1/\d)"', chart)


def text_of(client, name):
    return " ".join(client.get(reverse("rules:game", args=[name])).content.decode().split())


def test_rules_pages_quote_the_authors_note_and_credit(client):
    for name in ["copolymer", "hadron", "tripen"]:
        page = text_of(client, name)
        assert "Author's note" in page
        assert "please attribute the game to me, Mark Steere" in page
    page = text_of(client, "colorful")
    assert "Nick Bentley" in page
    assert "Colorful Connection (working title)" in page
    assert "rec.games.abstract" in page and "2009" in page


def test_unknown_game_rules_is_404(client):
    assert client.get("/rules/chess/").status_code == 404


def test_static_files_are_served_without_collectstatic(client):
    response = client.get("/static/css/site.css")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/css")
    assert b"--bg" in b"".join(response.streaming_content)  # the stylesheet itself
