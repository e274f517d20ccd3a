"""`{% link %}` (frontend's links tags): an argument-free page's URL, reversed once per process
but still under the request's script prefix."""
from django.template import Context, Template
from django.urls import reverse, set_script_prefix


def test_a_link_is_its_pages_url_under_any_script_prefix():
    shown = Template("{% load links %}{% link 'ratings:leaderboard' %}")
    assert shown.render(Context()) == reverse("ratings:leaderboard") == "/leaderboard/"
    set_script_prefix("/tessera/")
    try:
        assert shown.render(Context()) == "/tessera/leaderboard/"
    finally:
        set_script_prefix("/")
    assert shown.render(Context()) == "/leaderboard/"
