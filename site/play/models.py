"""Game records: options, players, time control and clocks, one row per action, the result.

The position is never stored: it is always the engine's replay of the stored actions (served
from a per-process cache of immutable engine states, see play.positions).
"""
from functools import lru_cache
from typing import NamedTuple

from django.conf import settings
from django.db import connection, models
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast, Coalesce
from django.urls import reverse
from django.utils import timezone

import games
from accounts.models import is_computer
from live.sql import read, written
from play import lapses, positions
from play.clock import TimeControl, expiry, remaining_now, restart_grace, server_gap
from play.labels import options_text
from play.seats import PlayerIndex, Side


@lru_cache(maxsize=4096)
def game_url(game_id):
    # Every move's news names the game's page; reverse() is slow enough to show in profiles.
    return reverse("play:game", args=[game_id])


class GameQuerySet(models.QuerySet):
    def with_players(self):
        # With their profiles: whether a seat is a computer (Game.is_computer) comes with them.
        return self.select_related("player0__profile", "player1__profile")

    def active(self):
        return self.filter(status=Game.ACTIVE)

    def of_player(self, user):
        return self.filter(models.Q(player0=user) | models.Q(player1=user))

    def locked(self):
        """For a change: each row read stays locked until the transaction ends (SELECT ... FOR
        UPDATE on PostgreSQL; on SQLite, IMMEDIATE transactions take the database's one write
        lock). With the players (result texts, the players' `turn` news)."""
        return self.select_for_update(of=("self",)).with_players()


class Seat(NamedTuple):
    index: PlayerIndex  # 0 for player0 (who moved first), 1 for player1
    player: object      # the User
    side: Side          # the side they play now (Tripen's swap exchanges them)
    side_name: str  # the engine's name of that side, e.g. "Red"

    @property
    def username(self):
        return self.player.get_username()


class Game(models.Model):
    ACTIVE, FINISHED, ABORTED = "active", "finished", "aborted"
    STATUSES = [(ACTIVE, "active"), (FINISHED, "finished"), (ABORTED, "aborted")]
    REASONS = [("", "in progress"), ("normal", "normal end"), ("resign", "resignation"),
               ("time", "time"), ("abort", "abort"), ("no_start", "no first move"),
               ("left", "opponent left"), ("idle", "left untouched")]
    # Endings with no result: the game did not really take place, so it is never rated and
    # counts as neither win, loss nor draw (play.endings, ratings.services).
    NO_RESULT = frozenset({"abort", "no_start", "idle"})
    TIME_KINDS = [("untimed", "untimed"), ("correspondence", "correspondence"),
                  ("realtime", "realtime")]

    game = models.CharField(max_length=20, choices=[(n, n) for n in games.names()])
    options = models.JSONField(default=dict)
    # player0 moved first (side 0) when the game started; Tripen's swap flips the sides.
    player0 = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                related_name="games_as_player0")
    player1 = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                related_name="games_as_player1")
    swapped = models.BooleanField(default=False)
    # Rated games change the players' ratings when they end (the ratings app); casual not.
    rated = models.BooleanField(default=False)

    time_kind = models.CharField(max_length=16, choices=TIME_KINDS, default="untimed")
    minutes = models.PositiveSmallIntegerField(null=True, blank=True)
    increment = models.PositiveSmallIntegerField(null=True, blank=True)
    days = models.PositiveSmallIntegerField(null=True, blank=True)
    # Realtime: each player's time left when the running clock last started. The running
    # clock is the player to move's; it started at turn_started_at (null once over/untimed).
    remaining0_ms = models.BigIntegerField(null=True, blank=True)
    remaining1_ms = models.BigIntegerField(null=True, blank=True)
    # Realtime: each player's berserk (play.berserk, offered by an arena): they halved their
    # own clock and, as on lichess, get no increment for the rest of the game.
    berserk0 = models.BooleanField(default=False, db_default=False)
    berserk1 = models.BooleanField(default=False, db_default=False)
    turn_started_at = models.DateTimeField(null=True, blank=True)
    # When the game ends by itself unless someone acts (play.lapses): the running clock's
    # flag, a first move not made in time, an untimed game left alone. Kept by save(), for
    # the sweeper's query; null once the game is over.
    expires_at = models.DateTimeField(null=True, blank=True)
    # Whether player1 has acted (player0 always acts first): until then the game may be
    # aborted, and a first move not made in time aborts it rather than losing it.
    both_moved = models.BooleanField(default=False)
    # Since when each player has had no socket on the game (null: on the page now). A player
    # whose opponent has been gone long enough from a realtime game may claim the win.
    absent0_since = models.DateTimeField(null=True, blank=True)
    absent1_since = models.DateTimeField(null=True, blank=True)
    # When a stopping server process closed each player's page (close code 4012, a restart's
    # drain), until that player's next socket arrives (null: nothing pending). Their clock is
    # not charged for the gap between (play.services.back_after_restart), at most
    # PLAY_RESTART_GRACE_SECONDS after the close, once.
    server_closed0_at = models.DateTimeField(null=True, blank=True)
    server_closed1_at = models.DateTimeField(null=True, blank=True)

    status = models.CharField(max_length=10, choices=STATUSES, default=ACTIVE)
    winner = models.SmallIntegerField(null=True, blank=True)  # PLAYER index, not side
    reason = models.CharField(max_length=10, choices=REASONS, default="", blank=True)
    result_text = models.CharField(max_length=200, blank=True)
    ply_count = models.PositiveIntegerField(default=0)
    # Which player offered a rematch after the end (null: no standing offer).
    rematch_offer = models.SmallIntegerField(null=True, blank=True)
    # A takeback standing: the player who proposed it (null: none). It refers to the game's
    # ply, which it cannot outlive: any action or ending lapses it (play.takeback).
    takeback_offer = models.SmallIntegerField(null=True, blank=True)
    # How many takebacks the game has had. Taken-back actions are deleted, so a (game, ply)
    # names a different position after one: every cache of positions keys on this too.
    takebacks = models.PositiveIntegerField(default=0)
    # Whether a player has a premove queued (play.premoves): read with the game row, so a move
    # costs no extra query when nobody has.
    premove_waiting = models.BooleanField(default=False)
    # Whether a player has conditional moves waiting (play.conditionals), for the same reason.
    conditions_waiting = models.BooleanField(default=False)
    # Correspondence: since when each player has been on vacation (play.vacations; null: not
    # away). While the player to move is away their deadline stands still.
    vacation0_since = models.DateTimeField(null=True, blank=True)
    vacation1_since = models.DateTimeField(null=True, blank=True)
    rematch_of = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="rematches")

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    # options["size"] and options["board"] (Colorful's variant, "" for the other games) copied
    # by the database itself, for the Archive's indexed board filters: a lookup inside the JSON
    # options cannot use an index on SQLite. Read-only: the database keeps them.
    option_size = models.GeneratedField(
        expression=Coalesce(Cast(KeyTextTransform("size", "options"), models.IntegerField()), 0),
        output_field=models.IntegerField(), db_persist=True)
    option_board = models.GeneratedField(
        expression=Coalesce(KeyTextTransform("board", "options"), models.Value(""),
                            output_field=models.CharField(max_length=10)),
        output_field=models.CharField(max_length=10), db_persist=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            # Lobby / watch: live games, most recent activity first.
            models.Index(fields=["status", "-updated_at"], name="play_game_status_upd"),
            # Archive: finished games newest first (finished_at, id): all of them, one game
            # kind, or one player's (a player is player0 or player1: one index each).
            # The seats at its end: the exhibitions' exclusion (both seats computers) is read
            # off the index too, so a deep page's OFFSET and the count skip entries without
            # reading their rows (page 2,000 of 100,000 games: 57 -> 5 ms in SQLite).
            models.Index(fields=["status", "-finished_at", "-id", "player0", "player1"],
                         name="play_game_status_fin_seats"),
            models.Index(fields=["game", "status", "-finished_at"], name="play_game_game_fin"),
            models.Index(fields=["player0", "status", "-finished_at"], name="play_game_p0_fin"),
            models.Index(fields=["player1", "status", "-finished_at"], name="play_game_p1_fin"),
            # Archive board filters: one game at one size, or Colorful on one board variant.
            models.Index(fields=["game", "option_size", "status", "-finished_at", "-id"],
                         name="play_game_arch_size"),
            models.Index(fields=["game", "option_board", "status", "-finished_at", "-id"],
                         name="play_game_arch_board"),
            # The sweeper: active games whose time is up.
            models.Index(fields=["status", "expires_at"], name="play_game_expiry"),
        ]
        constraints = [
            models.CheckConstraint(condition=~models.Q(player0=models.F("player1")),
                                   name="play_game_two_players"),
        ]

    objects = GameQuerySet.as_manager()

    def __str__(self):
        return f"{self.title} #{self.pk}: {self.player0} v {self.player1}"

    def get_absolute_url(self):
        return game_url(self.pk)

    def identity(self) -> dict:
        """What every JSON view of a game (snapshot, Watch row) starts with."""
        return {"id": self.pk, "url": self.get_absolute_url(), "game": self.game,
                "title": self.title, "options": self.options}

    @property
    def engine(self):
        return games.get(self.game)

    @property
    def title(self):
        return self.engine.title

    @property
    def options_text(self):
        return options_text(self.game, self.options)

    @property
    def is_active(self):
        return self.status == self.ACTIVE

    @property
    def has_result(self):
        """Ended with a result (a win or a draw), not aborted, left idle or never started."""
        return not self.is_active and self.reason not in self.NO_RESULT

    # -- players and sides -------------------------------------------------------------------

    def players(self):
        return (self.player0, self.player1)

    def is_computer(self, player_index):
        """Whether the player at `player_index` is a computer (accounts.Profile.is_bot, loaded
        with the players: play.statements, GameQuerySet.with_players)."""
        return is_computer(self.players()[player_index])

    def player_index(self, user) -> PlayerIndex | None:
        if user is None or not getattr(user, "is_authenticated", False):
            return None
        if user.pk == self.player0_id:
            return PlayerIndex(0)
        if user.pk == self.player1_id:
            return PlayerIndex(1)
        return None

    def side_of(self, player_index: PlayerIndex) -> Side:
        """The side (engine colour) a player plays now: the pie rule swaps them."""
        return Side(player_index ^ int(self.swapped))

    def player_of(self, side: Side) -> PlayerIndex:
        """Who plays `side` now (a winner's side, a scorer's colour); for whoever is to move,
        the engine's `person_to_move` already says it (player_to_move)."""
        return PlayerIndex(side ^ int(self.swapped))

    def username(self, player_index: PlayerIndex):
        return self.players()[player_index].get_username()

    def seats(self):
        """Both players, player0 first, with the side each plays now."""
        sides = self.engine.sides
        return [Seat(PlayerIndex(index), player, self.side_of(PlayerIndex(index)),
                     sides[self.side_of(PlayerIndex(index))])
                for index, player in enumerate(self.players())]

    def follow_up(self):
        """The rematch agreed after this game, if any (none while it goes on: spare live games
        the query)."""
        return None if self.is_active else _follow_ups(self.pk).first()

    def follow_up_id(self):
        """The id of follow_up(), read alone: every view of a finished game's page asks, and
        the whole row of forty columns cost it about a millisecond more."""
        if self.is_active:
            return None
        for (found,) in read(_follow_up_statement(connection.vendor), [self.pk]):
            return found
        return None

    def player_to_move(self) -> PlayerIndex | None:
        """The index of the player whose turn it is (None once the position is over)."""
        return self.state().person_to_move

    # -- position ----------------------------------------------------------------------------

    def state(self):
        """The engine state after the stored actions (cached per instance and per process)."""
        key = (self.pk, self.takebacks, self.ply_count)
        cached = self.__dict__.get("_position")
        if cached is None or cached[0] != key:
            self._position = (key, positions.state_of(self))
        return self._position[1]

    def take_position(self, state):
        """This instance's position is now `state` (one action on, or taken back), not
        committed yet: only this instance sees it; the per-process cache learns it once the
        transaction commits."""
        self.ply_count = state.ply
        self._position = ((self.pk, self.takebacks, state.ply), state)

    def action_list(self):
        return list(self.action_rows.order_by("ply").values_list("action", flat=True))

    # -- clocks ------------------------------------------------------------------------------

    @property
    def time_control(self):
        return TimeControl(self.time_kind, self.minutes, self.increment, self.days)

    @property
    def berserk(self):
        """Which players went berserk (play.berserk), by player index."""
        return (self.berserk0, self.berserk1)

    def increments(self):
        """Each player's increment in seconds (realtime; None otherwise): the time control's,
        none for a player who went berserk."""
        if self.time_kind != "realtime":
            return None
        return [0 if went else (self.increment or 0) for went in self.berserk]

    @property
    def remaining_ms(self):
        if self.remaining0_ms is None:
            return None
        return [self.remaining0_ms, self.remaining1_ms]

    @remaining_ms.setter
    def remaining_ms(self, value):
        self.remaining0_ms, self.remaining1_ms = value if value is not None else (None, None)

    @property
    def running(self):
        """The player whose clock runs (None when over or untimed)."""
        if not self.is_active or self.time_kind == "untimed":
            return None
        return self.player_to_move()

    def clock_expiry(self):
        """When the running clock runs out (realtime) or the move deadline passes
        (correspondence); None when no clock runs, or the player to move is on vacation."""
        running = self.running
        if (running is not None and self.time_kind == "correspondence"
                and self.vacation_since(running) is not None):
            return None
        when = expiry(self.time_control, self.remaining_ms, running, self.turn_started_at)
        closed = None if running is None else self.server_closed_at(running)
        if when is not None and closed is not None and self.time_kind == "realtime":
            # Their page was closed by a restart and is not back yet: the flag waits for the
            # part of the grace their turn would be given back (play.services.back_after_restart).
            grace = restart_grace()
            when += server_gap(closed, self.turn_started_at, closed + grace, grace)
        return when

    @property
    def deadline(self):
        """Correspondence: the time by which the player to move must act."""
        return self.clock_expiry() if self.time_control.is_correspondence else None

    def remaining_at(self, now):
        return remaining_now(self.remaining_ms, self.running, self.turn_started_at, now)

    def first_move_pending(self):
        """Whether the player to move has not acted at all yet."""
        if self.both_moved or not self.is_active:
            return False
        return self.ply_count == 0 or self.player_to_move() == 1

    def vacation_since(self, player_index: PlayerIndex):
        return (self.vacation0_since, self.vacation1_since)[player_index]

    def mark_waiting(self, flag, waiting):
        """Set one of the flags that spare every move a look-up (`premove_waiting`,
        `conditions_waiting`) here and in the row, with one UPDATE, only when it changes."""
        if getattr(self, flag) != waiting:
            setattr(self, flag, waiting)
            Game.objects.filter(pk=self.pk).update(**{flag: waiting})

    def absent_since(self, player_index: PlayerIndex):
        return (self.absent0_since, self.absent1_since)[player_index]

    def server_closed_at(self, player_index: PlayerIndex):
        return (self.server_closed0_at, self.server_closed1_at)[player_index]

    def save(self, *args, **kwargs):
        update_fields = kwargs.get("update_fields")
        if update_fields is None:
            self.fields_to_save(None)
        else:
            kwargs["update_fields"] = self.fields_to_save(update_fields)
        super().save(*args, **kwargs)

    def fields_to_save(self, update_fields):
        """Bring the derived fields up to date before a save of `update_fields` (None: all),
        and say which fields to write (play.statements saves moves without save())."""
        if update_fields is None or "updated_at" in update_fields:
            self.updated_at = timezone.now()  # as auto_now will: lapses_at() reads it
        # A game being created has no position yet: start_game saves it once more.
        self.expires_at = lapses.lapses_at(self) if self.pk is not None else None
        if update_fields is not None and "expires_at" not in update_fields:
            return [*update_fields, "expires_at"]
        return update_fields


def awaiting(user) -> list[Game]:
    """The player's games in progress where it is their move, longest waiting first. The
    position of each comes from the per-process cache of engine states (play.positions)."""
    if not getattr(user, "is_authenticated", False):
        return []
    found = Game.objects.of_player(user).active().with_players().order_by("updated_at", "pk")
    return [game for game in found if is_their_turn(game, user)]


def is_their_turn(game, user) -> bool:
    mover = game.player_to_move() if game.is_active else None
    return mover is not None and game.players()[mover].pk == user.pk


class Action(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="action_rows")
    ply = models.PositiveIntegerField()  # 0-based index in the game's history
    action = models.CharField(max_length=32)  # canonical notation
    player = models.SmallIntegerField()  # player index (0/1), not side
    # Realtime: each player's time left just after this action. A takeback puts the clocks
    # back to these (the times of the rows cannot say it once a turn was restarted), and
    # clocks.json reads them.
    remaining0_ms = models.BigIntegerField(null=True, blank=True)
    remaining1_ms = models.BigIntegerField(null=True, blank=True)
    # Played by the server from its player's conditional moves (play.conditionals): the
    # archive's record marks it.
    by_condition = models.BooleanField(default=False, db_default=False)  # raw INSERTs omit it
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "ply"]
        constraints = [
            # The last line of defence against a move applied twice by racing processes.
            models.UniqueConstraint(fields=["game", "ply"], name="play_action_one_per_ply"),
        ]

    def __str__(self):
        return f"{self.game_id}:{self.ply} {self.action}"


class Premove(models.Model):
    """A realtime player's next turn, queued while the opponent is to move (play.premoves):
    one or more actions, played by the server the moment the turn passes to its owner, if
    still legal. Seen only by its owner. One per player and game; gone once played, dropped,
    cancelled, or the game is over."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="premoves")
    player = models.SmallIntegerField()  # PLAYER index, as Game.winner
    # The ply and takeback count the owner saw when queuing it: the opponent's turn it waits
    # behind. A takeback since then drops it (the position it was meant for is gone).
    ply = models.PositiveIntegerField()
    takebacks = models.PositiveIntegerField(default=0)
    actions = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "player"],
                                               name="one_premove_per_player")]


class Conditional(models.Model):
    """A correspondence player's conditional moves (play.conditionals): a tree of the
    opponent's possible turns and the owner's reply to each, played by the server when the
    opponent's turn matches. Seen only by its owner. One per player and game."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="conditionals")
    player = models.SmallIntegerField()  # PLAYER index, as Game.winner
    # The ply at which the opponent's turn the tree answers begins, and the takeback count
    # then: a takeback since discards the tree.
    ply = models.PositiveIntegerField()
    takebacks = models.PositiveIntegerField(default=0)
    # [{"if": [actions], "play": [actions], "then": [...]}, ...], canonical notation.
    tree = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "player"],
                                               name="one_conditional_per_player")]

    def lines(self):
        """The tree as the lines that make it, each a list of turns (theirs, yours, ...)."""
        return lines_of(self.tree)


def lines_of(tree):
    lines = []
    for branch in tree:
        head = [list(branch["if"]), list(branch["play"])]
        tails = lines_of(branch.get("then") or [])
        lines.extend([head + tail for tail in tails] or [head])
    return lines


class Vacation(models.Model):
    """A correspondence player's holiday (play.vacations): their deadlines stand still from
    `started_at` until they end it or `ends_by` (their year's allowance spent)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="vacations")
    started_at = models.DateTimeField()
    ends_by = models.DateTimeField()
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [models.Index(fields=["ended_at", "ends_by"], name="play_vacation_due")]
        constraints = [models.UniqueConstraint(fields=["user"],
                                               condition=models.Q(ended_at__isnull=True),
                                               name="one_vacation_at_a_time")]


class VacationGrant(models.Model):
    """Days an operator added to a player's vacation allowance for one calendar year
    (`manage.py vacations grant`), on top of PLAY_VACATION_DAYS: kept, so the allowance a page
    shows can be explained."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="vacation_grants")
    year = models.PositiveSmallIntegerField()
    days = models.PositiveSmallIntegerField()
    granted_at = models.DateTimeField()
    reason = models.CharField(max_length=200, blank=True)

    class Meta:
        indexes = [models.Index(fields=["user", "year"], name="play_vacation_grant_year")]


class Note(models.Model):
    """A player's private notes on a game: shown only to their author, kept with the game."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="notes")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                               related_name="game_notes")
    text = models.TextField(max_length=4000)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["game", "author"],
                                               name="one_note_per_author")]


@lru_cache(maxsize=None)
def _follow_up_statement(vendor):
    """Game.follow_up_id()'s query, written once per process (live.sql): follow_up()'s, of
    the id alone."""
    return written(_follow_ups(0).values_list("pk")[:1], [0])


def _follow_ups(game_id):
    """The games started as rematches of game `game_id`, the first agreed first."""
    return Game.objects.filter(rematch_of_id=game_id).order_by("pk")
