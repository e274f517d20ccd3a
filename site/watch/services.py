"""What the Watch page shows: the games in progress as rows (with a thumbnail of the current
position, drawn on the server) and the featured game, the liveliest one.

Everything here is synchronous ORM work; the Watch socket runs it on a reader thread
(live.lanes.read). A position is the play app's cached engine state (play.positions), so
a row after a move costs one step of the engine at most, never a replay of the game, and the
thumbnail of a position is drawn once per process (keyed like the positions: game id,
creation time, ply).
"""
import hashlib
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.db.models import Count, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.safestring import mark_safe

from boards import svg
from bots.services import is_exhibition
from live.sql import counting, prepared, read, written
from play import positions, presence
from play.models import Action, Game
from play.snapshots import clocks_of
from ratings.display import badge, badge_by_id, keep as keep_ratings, prefetch
from ratings.display import read as read_ratings
from watch.templatetags.watch_tags import time_left

# Rows on the page and in the socket's list: the newest games in progress.
LIMIT = 60
# Liveliness counts the actions of this recent stretch (see liveliest()).
LIVELY_WINDOW = timedelta(minutes=10)

thumbnails = positions.LRU(1024)


def live_games(kind=None):
    """Games in progress, of one game (engine name) or all."""
    found = Game.objects.active()
    return found.filter(game=kind) if kind else found


def newest_first(found, now=None):
    # Rows keep their place as moves are made: the list only grows at the top.
    found = with_watchers(found, now or timezone.now())
    return found.with_players().order_by("-created_at", "-pk")


def watching(now):
    """Watchers as the game page counts them: open sockets of anyone but the two players
    (a subquery per game, for annotate)."""
    return (presence.counted(now).filter(game_id=OuterRef("pk"))
            .exclude(user=OuterRef("player0")).exclude(user=OuterRef("player1"))
            .order_by().values("game_id").annotate(n=Count("pk")).values("n"))


def with_watchers(found, now):
    return found.annotate(watchers=Coalesce(Subquery(watching(now)), 0))


# -- pictures ----------------------------------------------------------------------------------

def picture(game, labels=False):
    """The current position as an SVG string, drawn once per process and position."""
    key = (*positions.key(game, game.ply_count), labels)
    drawing = thumbnails.get(key)
    if drawing is None:
        board = positions.state_dict(game, game.state())["board"]
        moves = f"{game.ply_count} move{'' if game.ply_count == 1 else 's'}"
        title = f"{game.title}, {game.player0} v {game.player1}, after {moves}"
        drawing = svg.render(board, labels=labels, title=title)
        thumbnails.put(key, drawing)
    return drawing


# -- rows --------------------------------------------------------------------------------------

def row_of(game, now=None):
    """A game in progress as the Watch list shows it (JSON-ready): with its clocks (as of
    `clocks.server_time`) and how many watch it, as on the game page."""
    now = now or timezone.now()
    prefetch(game.players())  # both badges in one query (a no-op for a listed game: rows())
    clocks = clocks_of(game, now)
    watchers = getattr(game, "watchers", None)
    if watchers is None:
        watchers = with_watchers(Game.objects.filter(pk=game.pk), now).values_list(
            "watchers", flat=True).first() or 0
    return {
        **game.identity(),
        "options_text": game.options_text,
        "time_control": game.time_control.text,
        "players": [{"username": seat.username, "side": seat.side, "side_name": seat.side_name,
                     "rating": badge(seat.player, game.game),
                     "clock_ms": clocks["remaining_ms"][seat.index] if clocks["remaining_ms"] else None}
                    for seat in game.seats()],
        "to_move": game.player_to_move(),
        "prompt": positions.state_dict(game, game.state())["prompt"],
        "ply": game.ply_count,
        "started": game.created_at.isoformat(),
        "updated": game.updated_at.isoformat(),
        "thumbnail": picture(game),
        "clocks": clocks,
        "watchers": watchers,
        # Two computers playing for the page (bots.services): shown as such.
        "exhibition": is_exhibition(game),
    }


def with_html(row):
    """The row and its list item, rendered by the template the page itself uses, so a row
    pushed over the socket looks exactly like one the server rendered. The item's thumbnail
    is left empty (the browser puts `thumbnail` there), so the picture is sent once."""
    html = render_to_string("watch/_row.html", {"row": {**row, "thumbnail": ""}})
    return {**row, "html": html.strip()}


# Part of every page row's key: change it when templates/watch/_row.html or row_of() changes
# what a row shows.
ROW_VERSION = 2
# A row is kept this long at most: a game in progress gets new keys as it moves.
ROW_TIMEOUT = 3600
# Every column of a game: with its players' names, what a row is drawn from besides the
# ratings beside the names, its watchers and the time (keyed()).
COLUMNS = [field.attname for field in Game._meta.concrete_fields]
NAMES = ("player0__username", "player1__username")


def read_lightly(ids):
    """Games `ids` (newest first) as their own columns only, with their values (the rows' keys
    are made of them) and their players' names: no players' or profiles' objects built, no
    watchers counted in the query."""
    if not ids:
        return []
    found = []
    for values in read(_lightly_statement(connection.vendor, len(ids)), list(ids)):
        values = tuple(values)
        found.append((Game.from_db(connection.alias, COLUMNS, values[:len(COLUMNS)]), values))
    return found


@lru_cache(maxsize=None)
def _newest_statement(vendor, kind, limit):
    """The ids of the list's games (newest first), written once per process and filter (a
    game's name or None: the form's choices): asked on every view for the rows' keys."""
    return written(live_games(kind).order_by("-created_at", "-pk").values_list("pk")[:limit])


@lru_cache(maxsize=None)
def _count_statement(vendor, kind):
    """live_games(kind).count(), written once per process and filter: the page's total."""
    return written(counting(live_games(kind)))


def live_count(kind=None):
    """How many games are in progress (of one game, or all)."""
    return read(_count_statement(connection.vendor, kind))[0][0]


@lru_cache(maxsize=None)
def _lightly_statement(vendor, count):
    """read_lightly()'s query for `count` games, written once per process (live.sql): Watch
    asks it on every view for its rows' keys, and the ORM compiled it each time."""
    return written(Game.objects.filter(pk__in=range(count)).order_by("-created_at", "-pk")
                   .values_list(*COLUMNS, *NAMES), range(count))


def named(game, values):
    """A game of read_lightly() with its players as users known by id and name (their other
    fields deferred: read if ever asked; a picture's title asks only for the names)."""
    users = get_user_model()
    for index, name in enumerate(values[len(COLUMNS):]):
        player = users.from_db(game._state.db, ["id", "username"],
                               (getattr(game, f"player{index}_id"), name))
        Game._meta.get_field(f"player{index}").set_cached_value(game, player)
    return game


def watchers_of(games, now):
    """{game id: watchers} as watching() counts them (anyone's open game socket but the two
    players'), for these games in one grouped query."""
    seats = {game.pk: (game.player0_id, game.player1_id) for game in games}
    found = dict.fromkeys(seats, 0)
    if not seats:
        return found
    stale = presence.stale_after()
    params = [presence.KIND, prepared(presence.Presence._meta.get_field("seen_at"), now - stale),
              *seats]
    for game_id, user_id, sockets in read(_watchers_statement(connection.vendor, len(seats),
                                                              stale), params):
        if user_id is None or user_id not in seats[game_id]:
            found[game_id] += sockets
    return found


@lru_cache(maxsize=None)
def _watchers_statement(vendor, count, stale):
    """watchers_of()'s query for `count` games, written once per process (live.sql): Watch
    asks it on every view for its rows' keys. Its parameters: the oldest moment a socket's row
    counts from (now - stale, in the key: presence.counted()), then the games' ids."""
    epoch = timezone.now().replace(year=2000, month=1, day=1)
    query = (presence.counted(epoch + stale).filter(game_id__in=range(count)).order_by()
             .values("game_id", "user_id").annotate(sockets=Count("pk"))
             .values_list("game_id", "user_id", "sockets"))
    seen_at = presence.Presence._meta.get_field("seen_at")
    return written(query, [presence.KIND, prepared(seen_at, epoch), *range(count)])


@dataclass
class Listing:
    """The list's games as read_lightly() reads them, newest first, with everything their rows
    are drawn from besides (keyed()), and their rows' keys."""
    games: list  # (game, values)
    keys: dict  # {game id: its row's key}
    clocks: dict  # {game id: clocks_of() now}
    watchers: dict  # {game id: watchers}
    ratings: dict  # read_ratings() of their players
    now: object


def keyed(kind=None, limit=LIMIT, now=None):
    """The list's games with the keys of their rows. A row is kept in the cache with its item
    under a key made of everything it is drawn from: the game's columns, its players' names and
    ratings, its watchers, and its clocks as read now but the moment itself (a running clock's
    remaining time is in the key, so it misses as it should; a stopped one reads the same at
    any moment) with a correspondence deadline as the page words it ("2 days 3 h")."""
    now = now or timezone.now()
    light = read_lightly([pk for (pk,) in read(_newest_statement(connection.vendor, kind, limit))])
    games = [game for game, _ in light]
    watchers = watchers_of(games, now)
    ratings = read_ratings(player for game in games for player in (game.player0_id,
                                                                   game.player1_id))
    keys, clocks = {}, {}
    for game, values in light:
        clocks[game.pk] = clocks_of(game, now)
        still = {k: v for k, v in clocks[game.pk].items() if k != "server_time"}
        deadline = still["deadline"]
        badges = [badge_by_id(player, game.game, ratings)
                  for player in (game.player0_id, game.player1_id)]
        shown = repr((ROW_VERSION, values, badges, watchers[game.pk], still,
                      deadline and time_left(deadline), is_exhibition(game)))
        keys[game.pk] = f"watch:item:{game.pk}:{hashlib.sha1(shown.encode()).hexdigest()}"
    return Listing(light, keys, clocks, watchers, ratings, now)


def drawn_rows(listing):
    """The rows (row_of(), without the picture: it is in the item) and list items of a
    Listing, newest first, with their games: the kept ones read in one get_many; only the games
    whose rows are not kept are read whole, and only their rows are drawn."""
    keys, now = listing.keys, listing.now
    kept = cache.get_many(list(keys.values()))
    missing = [pk for pk, key in keys.items() if key not in kept]
    if missing:
        fresh = {}
        for game in Game.objects.with_players().filter(pk__in=missing):
            game.watchers = listing.watchers[game.pk]
            keep_ratings(game.players(), listing.ratings)
            row = row_of(game, now)
            html = render_to_string("watch/_row.html", {"row": row})
            # The picture is in the item: kept once (the page's rows go without it).
            fresh[keys[game.pk]] = ({**row, "thumbnail": None}, html)
        cache.set_many(fresh, ROW_TIMEOUT)
        kept.update(fresh)
    # A game gone since it was listed (deleted with its player's account) is left out.
    shown = [(game, values, kept[keys[game.pk]]) for game, values in listing.games
             if keys[game.pk] in kept]
    # A kept row differs from a fresh one only by the moment its clocks were read.
    rows = [{**row, "clocks": listing.clocks[game.pk]} for game, _, (row, _) in shown]
    return ([(game, values) for game, values, _ in shown], rows,
            [mark_safe(html) for _, _, (_, html) in shown])


def listed(kind=None, limit=LIMIT, now=None):
    """The list's games: the newest in progress, with their players, ratings and watchers."""
    # The newest games' ids first, then those games with their watchers: annotated in one
    # query with the ordering and the limit, the watchers' subquery ran for every game in
    # progress before the sort (250 ms with 2,000 of them, bench/pages_load.py --playing).
    newest = list(live_games(kind).order_by("-created_at", "-pk").values_list("pk", flat=True)
                  [:limit])
    found = list(newest_first(Game.objects.filter(pk__in=newest), now or timezone.now()))
    prefetch([player for game in found for player in game.players()])
    return found


def rows(kind=None, limit=LIMIT):
    now = timezone.now()
    return [row_of(game, now) for game in listed(kind, limit, now)]


# -- the featured game -------------------------------------------------------------------------

def ranked(found, now):
    """`found` annotated with its liveliness and ordered liveliest first (see liveliest())."""
    recent = (Action.objects.filter(game=OuterRef("pk"), created_at__gte=now - LIVELY_WINDOW)
              .order_by().values("game").annotate(n=Count("pk")).values("n"))
    return with_watchers(found, now).annotate(
        recent_actions=Coalesce(Subquery(recent), 0),
    ).order_by("-recent_actions", "-watchers", "-updated_at", "-pk")


def liveliest(kind=None, now=None):
    """The featured game: the liveliest game in progress (of `kind`, or of any game), or None.

    Liveliness, compared in this order:
      1. the number of actions played in the last LIVELY_WINDOW (10 minutes): a game being
         played right now beats one whose players are thinking or away;
      2. the number of people watching it now (open game pages other than the players');
      3. the time of its most recent action (a game's updated_at moves with every action;
         a game without actions yet counts from its start);
      4. the newest game (highest id), so the choice is always the same for the same data.

    A game with actions in the window has been saved within it, so when any such game exists
    only the games updated in the window are ranked (an index range on status, updated_at);
    otherwise every game in progress is.
    """
    now = now or timezone.now()
    found = live_games(kind).with_players()
    best = ranked(found.filter(updated_at__gte=now - LIVELY_WINDOW), now).first()
    if best is None or best.recent_actions == 0:
        best = ranked(found, now).first()
    return best


def featured(kind=None, keep=None):
    """The featured game of a Watch page: `keep` (the game it features already, an id) while
    that game is still in progress and passes the filter, else the liveliest. A featured game
    stays until it ends, so the big board does not jump between two equally busy games."""
    if keep is not None:
        kept = in_progress(keep, kind)
        if kept is not None:
            return kept
    return liveliest(kind)


def in_progress(pk, kind=None):
    """Game `pk` if it is in progress (and of `kind`), else None: read by its key alone (with
    the status in the same query, SQLite may walk the status index over every game in
    progress instead)."""
    game = Game.objects.with_players().filter(pk=pk).first()
    if game is None or not game.is_active or (kind and game.game != kind):
        return None
    return game


# How long the Watch page shows the same pick of liveliest() (seconds): ranking every game in
# progress costs about 1/10 ms a game (200 ms with 2,000 in SQLite, bench/pages_load.py
# --playing); the page's script keeps the featured game live from then on (the socket's
# listing, with `keep`).
PICK_FRESH = 5


def page_featured(kind=None, games=()):
    """The featured game of a Watch page served by the server: liveliest(), ranked at most
    once every PICK_FRESH seconds per filter (in Django's cache: shared by the processes);
    in between, the same game while it is still in progress. `games`: games of `kind` in
    progress read for this page already (listed()): a pick among them is not read again."""
    key = f"watch:pick:{kind or ''}"
    pick = cache.get(key)
    if pick is not None:
        pk, started = pick
        kept = next((game for game in games if game.pk == pk), None) or in_progress(pk, kind)
        # The start time too: a game id alone may be another game's after a database was
        # emptied (tests).
        if kept is not None and kept.created_at.isoformat() == started:
            return kept
    best = liveliest(kind)
    if best is not None:
        cache.set(key, (best.pk, best.created_at.isoformat()), PICK_FRESH)
    return best


@dataclass
class Page:
    listing: Listing  # the listed games, keyed()
    total: int  # games in progress (of the filter's game)
    featured: object = None  # the featured game
    # Everything the page shows of its games (the rows' keys, which game is featured, how many
    # are in progress), for frontend.kept; None when the featured game is not a listed one
    # (its row is drawn fresh, outside the keys).
    facts: tuple = None

    def drawn(self):
        """The rows of the listed games (row_of()), newest first, their list items (HTML),
        and the featured game's row."""
        listed, rows, items = drawn_rows(self.listing)
        featured = self.featured
        if featured is None:
            return rows, items, None
        for game, values in listed:
            if game is featured:
                named(game, values)  # its picture's title names the players
        row = next((row for row in rows if row["id"] == featured.pk), None)
        return rows, items, row or row_of(featured, self.listing.now)


def page(kind=None):
    """What the Watch page shows: the listed games keyed() and the featured game; their rows
    are drawn (Page.drawn()) only for a page not kept whole. The featured game is most often
    one of the listed: then it is read and counted once."""
    listing = keyed(kind)
    total = live_count(kind)
    keys = list(listing.keys.values())
    featured = page_featured(kind, [game for game, _ in listing.games])
    if featured is None:
        return Page(listing, total, facts=(keys, total, None))
    # A listed featured game's row says all it shows but the moment its clocks were read
    # (server_time, which no script reads: a running clock is in the key).
    facts = (keys, total, featured.pk) if featured.pk in listing.keys else None
    return Page(listing, total, featured, facts)


def featured_row(kind=None, keep=None):
    game = featured(kind, keep)
    return None if game is None else row_of(game)


# -- what the socket sends ---------------------------------------------------------------------

def listing(kind=None, keep=None):
    """Everything a Watch socket starts from (and resynchronises with after a reconnect)."""
    return {
        "games": [with_html(row) for row in rows(kind)],
        "featured": featured_row(kind, keep),
        "total": live_count(kind),
    }


def totals():
    """How many games are in progress, per game (engine name)."""
    counts = live_games().order_by().values("game").annotate(n=Count("pk"))
    return {count["game"]: count["n"] for count in counts}


def news_of(game_id):
    """What changed about one game, for the Watch sockets: its row while it is in progress,
    its result once it has ended. None if there is no such game."""
    game = Game.objects.with_players().filter(pk=game_id).first()
    if game is None:
        return None
    news = {"id": game.pk, "game": game.game, "active": game.is_active,
            "updated_at": game.updated_at, "totals": totals()}
    if game.is_active:
        news["row"] = with_html(row_of(game))
    else:
        news["result"] = game.result_text
    return news
