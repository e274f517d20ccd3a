"""The Archive page, positions for the replay viewer, exploration, and exports.

Everything here is public, like watching: a visitor who never signed up can search, replay,
explore and download. The position and export endpoints answer for live games too (a
spectator steps back through the moves already played), up to the ply the game has reached.
"""
import hashlib

from csp.decorators import csp_replace
from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string
from django.utils.cache import patch_cache_control
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET
from django_ratelimit.core import is_ratelimited

from archive import drawings, exports, listing, positions, queries
from archive.forms import ArchiveFilter, ExploreForm
from frontend import kept
from live import clients
from play.clock import clock_history
from play.models import Game

# A position of a finished game never changes. One of a game in progress may: a takeback
# deletes actions, and the ply is then played again, maybe otherwise (play.takeback).
POSITION_MAX_AGE = 3600


def load(game_id):
    return get_object_or_404(Game.objects.with_players(), pk=game_id)


def load_json(game_id):
    """The game, or a JSON 404 for clients that read JSON."""
    game = Game.objects.with_players().filter(pk=game_id).first()
    if game is None:
        return None, JsonResponse({"error": "not_found", "message": "No such game."}, status=404)
    return game, None


def cacheable(response, game):
    if game.is_active:
        patch_cache_control(response, no_cache=True)
    else:
        patch_cache_control(response, public=True, max_age=POSITION_MAX_AGE)
    return response


def by_address(group, request):
    return clients.of_request(request) or ""


def over_limit(request, group, rate):
    """A 429 when this client address asked for more exports of `group` than `rate` allows
    (django-ratelimit's fixed windows, counted in the "limits" cache), else None."""
    if not is_ratelimited(request, group=group, key=by_address, rate=rate, increment=True):
        return None
    response = HttpResponse("Too many exports from your address: try again in a minute.",
                            status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = "60"
    return response


def attachment(response, name):
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


# Part of the search form's key: change it when templates/archive/_filter.html changes.
FILTER_VERSION = 1
FILTER_TIMEOUT = 24 * 3600


def filter_html(form):
    """The search form's HTML and its key. A valid search's form shows only what was asked and
    the tournaments offered, so it is rendered once for those and kept; a refused one (its
    errors may depend on the database: no such player) is rendered every time (key None)."""
    if not form.is_valid():
        return render_to_string("archive/_filter.html", {"form": form}), None
    offered = form.fields["event"].offered()
    shown = repr((FILTER_VERSION, sorted(form.data.lists()), offered))
    key = f"archive:filter:{hashlib.sha1(shown.encode()).hexdigest()}"
    html = cache.get(key)
    if html is None:
        html = render_to_string("archive/_filter.html", {"form": form})
        cache.set(key, html, FILTER_TIMEOUT)
    return mark_safe(html), key


@require_GET
def index(request):
    form = ArchiveFilter(request.GET)
    page = found = facts = None
    search, search_key = filter_html(form)
    if form.is_valid():
        page = queries.ids_page_of(form.filters(), request.GET.get("page"))
        found = listing.keyed(page.object_list)
        facts = (search_key, found.shown(), page.number, page.paginator.count,
                 page.paginator.num_pages)
    # Drawn once for what it shows, for visitors who are not signed in (frontend.kept): the
    # rows themselves (25 reads of the cache) only when the page is drawn.
    return kept.page(request, facts, lambda: render(
        request, "archive/index.html",
        {"form": form, "page": page, "rows": found and listing.items(found)[0],
         "filter_html": search}))


@require_GET
def position_json(request, game_id, ply):
    game, missing = load_json(game_id)
    if missing:
        return missing
    static = request.GET.get("static") != "0"
    try:
        text = positions.position_json(game, ply, static=static)
    except positions.NoSuchPly as error:
        return JsonResponse({"error": "no_such_ply", "message": str(error)}, status=404)
    return cacheable(HttpResponse(text, content_type="application/json"), game)


@require_GET
@csp_replace({"style-src": exports.STYLE_SOURCE})
def position_svg(request, game_id, ply):
    # Not limited: the Archive's thumbnails are these (25 a page), and text is cheap to write.
    game = load(game_id)
    try:
        text = exports.position_svg(game, ply, labels=request.GET.get("labels") != "0")
    except positions.NoSuchPly as error:
        return HttpResponse(str(error), status=404, content_type="text/plain; charset=utf-8")
    response = HttpResponse(text, content_type="image/svg+xml; charset=utf-8")
    return cacheable(attachment(response, exports.filename(game, "svg", ply)), game)


@require_GET
def position_png(request, game_id, ply):
    if refused := over_limit(request, "export-png", settings.EXPORT_PNG_RATE):
        return refused
    game = load(game_id)
    try:
        data = exports.position_png(game, ply, labels=request.GET.get("labels") != "0")
    except positions.NoSuchPly as error:
        return HttpResponse(str(error), status=404, content_type="text/plain; charset=utf-8")
    response = HttpResponse(data, content_type="image/png")
    return cacheable(attachment(response, exports.filename(game, "png", ply)), game)


@require_GET
def game_gif(request, game_id):
    """The whole game as an animated GIF, up to the ply it has reached."""
    if refused := over_limit(request, "export-gif", settings.EXPORT_GIF_RATE):
        return refused
    game = load(game_id)
    try:
        data = exports.game_gif(game)
    except ValueError as error:
        return HttpResponse(str(error), status=400, content_type="text/plain; charset=utf-8")
    except drawings.StillDrawing:
        response = HttpResponse("This game's GIF is being drawn: try again in a moment.",
                                status=503, content_type="text/plain; charset=utf-8")
        response["Retry-After"] = "5"
        return response
    response = HttpResponse(data, content_type="image/gif")
    # A game in progress grows: its GIF is only worth keeping once it is over.
    if not game.is_active:
        cacheable(response, game)
    return attachment(response, exports.filename(game, "gif", game.ply_count))


@require_GET
def explore(request, game_id):
    game, missing = load_json(game_id)
    if missing:
        return missing
    form = ExploreForm(request.GET, game=game)
    if not form.is_valid():
        fields = form.errors.get_json_data()
        message = " ".join(error["message"] for errors in fields.values() for error in errors)
        return JsonResponse({"error": "bad_request", "message": message, "fields": fields},
                            status=400)
    ply, line = form.cleaned_data["ply"], form.cleaned_data["moves"]
    try:
        state = positions.explore(game, ply, line)
    except positions.IllegalLine as refusal:
        return JsonResponse({"error": "illegal", "message": refusal.reason,
                             "index": refusal.index, "action": refusal.action}, status=400)
    static = request.GET.get("static") != "0"
    return JsonResponse(state.to_dict(static=static))


@require_GET
def clocks_json(request, game_id):
    """Each player's time left after each ply of a realtime game (null for other games)."""
    game, missing = load_json(game_id)
    if missing:
        return missing
    return JsonResponse({"remaining_ms": clock_history(game)})


@require_GET
def record_text(request, game_id):
    return record(request, game_id, exports.record_text, "txt", "text/plain; charset=utf-8")


@require_GET
def record_json(request, game_id):
    return record(request, game_id, exports.record_json, "json", "application/json")


def record(request, game_id, write, extension, content_type):
    """The game's record as a download, written by `write(game, url)`."""
    game = load(game_id)
    text = write(game, request.build_absolute_uri(game.get_absolute_url()))
    return attachment(HttpResponse(text, content_type=content_type),
                      exports.filename(game, extension))

