"""`{% link %}` (frontend's links tags): an argument-free page's URL, reversed once per process
but still under the request's script prefix; a static file's URL worked out once
(frontend.storage)."""
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


def test_a_static_files_url_is_djangos_worked_out_once():
    from django.contrib.staticfiles.storage import StaticFilesStorage, staticfiles_storage
    from django.templatetags.static import static
    plain = StaticFilesStorage()
    for name in ("css/site.css", "js/watch.js", "img/a b.svg"):
        assert static(name) == static(name) == plain.url(name)
    from frontend.storage import StaticFiles
    staticfiles_storage.url("css/site.css")  # the lazy storage made
    assert isinstance(staticfiles_storage._wrapped, StaticFiles)


def test_a_link_with_arguments_is_their_pages_url():
    shown = Template("{% load links %}{% link 'rules:game' name %} "
                     "{% link 'learn:step' 'hadron' 1 %}")
    for name in ("hadron", "tripen"):
        assert shown.render(Context({"name": name})) == (
            f"{reverse('rules:game', args=[name])} {reverse('learn:step', args=['hadron', 1])}")
