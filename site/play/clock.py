"""Time controls and the arithmetic of the server's clocks.

The clocks live on the game row: each player's remaining time in milliseconds (realtime) and
the moment the running clock started. Nothing here touches the database; models and services
call these functions with the row's values and the current time, so the rules of the clock
are in one place and testable without a server.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings

from play.seats import PlayerIndex

KINDS = ("untimed", "correspondence", "realtime")
MINUTES = range(1, 181)
INCREMENT = range(0, 61)
DAYS = range(1, 15)
TEXT_PATTERN = re.compile(r"\s*(\d{1,3})\s*\+\s*(\d{1,2})\s*")


def _whole(value, name):
    # bool is an int subclass: True minutes would otherwise pass as 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{name} must be a whole number, not {value!r}")
    return value


@dataclass(frozen=True)
class TimeControl:
    kind: str
    minutes: int | None = None    # realtime: 1..180 minutes each
    increment: int | None = None  # realtime: seconds added when the turn passes, 0..60
    days: int | None = None       # correspondence: days per move, 1..14

    def validate(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"a time control is one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.kind == "realtime":
            self._expect(minutes=True, increment=True, days=False)
            if _whole(self.minutes, "minutes") not in MINUTES:
                raise ValueError("a realtime game gives each player 1 to 180 minutes")
            if _whole(self.increment, "the increment") not in INCREMENT:
                raise ValueError("the increment is 0 to 60 seconds")
        elif self.kind == "correspondence":
            self._expect(minutes=False, increment=False, days=True)
            if _whole(self.days, "days") not in DAYS:
                raise ValueError("a correspondence game allows 1 to 14 days per move")
        else:
            self._expect(minutes=False, increment=False, days=False)

    def _expect(self, **wanted):
        for field, needed in wanted.items():
            present = getattr(self, field) is not None
            if needed and not present:
                raise ValueError(f"a {self.kind} time control needs {field}")
            if present and not needed:
                raise ValueError(f"a {self.kind} time control has no {field}")

    @property
    def text(self) -> str:
        if self.kind == "realtime":
            return f"{self.minutes}+{self.increment}"
        if self.kind == "correspondence":
            return f"{self.days} day{'s' if self.days != 1 else ''} per move"
        return "untimed"

    @property
    def is_realtime(self) -> bool:
        return self.kind == "realtime"

    @property
    def is_correspondence(self) -> bool:
        return self.kind == "correspondence"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "minutes": self.minutes, "increment": self.increment,
                "days": self.days, "text": self.text}

    @classmethod
    def from_dict(cls, d) -> TimeControl:
        if not isinstance(d, dict):
            raise ValueError("a time control is an object with kind, minutes, increment, days")
        tc = cls(kind=d.get("kind"), minutes=d.get("minutes"),
                 increment=d.get("increment"), days=d.get("days"))
        tc.validate()
        return tc

    @classmethod
    def realtime(cls, minutes, increment=0) -> TimeControl:
        tc = cls("realtime", minutes=minutes, increment=increment)
        tc.validate()
        return tc

    @classmethod
    def correspondence(cls, days) -> TimeControl:
        tc = cls("correspondence", days=days)
        tc.validate()
        return tc

    @classmethod
    def untimed(cls) -> TimeControl:
        return cls("untimed")

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """"5+3" (minutes + seconds of increment) as typed by operators and shown on pages."""
        match = TEXT_PATTERN.fullmatch(text or "")
        if not match:
            raise ValueError(
                f"a realtime control looks like 5+3 (minutes + increment), not {text!r}")
        return cls.realtime(int(match[1]), int(match[2]))

    @property
    def start_ms(self) -> int | None:
        return self.minutes * 60_000 if self.is_realtime else None


def ms(delta: timedelta) -> int:
    return int(delta.total_seconds() * 1000)


def remaining_now(remaining_ms, running: PlayerIndex | None, turn_started_at, now: datetime):
    """Each player's remaining time at `now`: the running clock has the time since the turn
    started taken off (never below zero); the other clock stands still."""
    if remaining_ms is None:
        return None
    left = list(remaining_ms)
    if running is not None and turn_started_at is not None:
        left[running] = max(0, left[running] - ms(now - turn_started_at))
    return left


def expiry(tc: TimeControl, remaining_ms, running: PlayerIndex | None,
           turn_started_at) -> datetime | None:
    """When the running player's time runs out (realtime) or their deadline passes
    (correspondence); None when no clock runs."""
    if running is None or turn_started_at is None:
        return None
    if tc.is_realtime:
        return turn_started_at + timedelta(milliseconds=remaining_ms[running])
    if tc.is_correspondence:
        return turn_started_at + timedelta(days=tc.days)
    return None


def after_action(tc: TimeControl, remaining_ms, mover: PlayerIndex,
                 next_player: PlayerIndex | None, turn_started_at, now: datetime,
                 berserk=(False, False)):
    """Clock values after `mover` acted at `now`: (remaining_ms, turn_started_at).

    The mover pays for the time since the turn (or their previous action of the same turn)
    started. The increment is added only when the turn passes to the other player, so a turn
    of several actions (Copolymer's forced claims, Colorful's two stones) earns it once, and a
    player who went berserk (`berserk`, by player index; play.berserk) never earns it.
    `next_player` is None when the action ended the game: the clocks stop."""
    if tc.is_realtime:
        left = list(remaining_ms)
        left[mover] = max(0, left[mover] - ms(now - turn_started_at))
        if next_player is not None and next_player != mover and not berserk[mover]:
            left[mover] += tc.increment * 1000
        return left, (None if next_player is None else now)
    if tc.is_correspondence:
        # The deadline is per turn: a second action of the same turn keeps the turn's start.
        if next_player is None:
            return None, None
        return None, (now if next_player != mover else turn_started_at)
    return None, None


def restart_grace() -> timedelta:
    """How long after a restart closed a player's page their clock may be given back."""
    return timedelta(seconds=settings.PLAY_RESTART_GRACE_SECONDS)


def server_gap(closed_at: datetime, turn_started_at, back_at: datetime,
               cap: timedelta) -> timedelta:
    """The time a player's clock ran while their page was away because the server closed its
    socket (a process stopping for a restart): from the close (`closed_at`) to their next
    socket's arrival (`back_at`), counted only while their turn ran (from `turn_started_at`)
    and only within `cap` of the close. The server's moments only, never a page's; nothing
    once more than `cap` has passed since the close (the time is then the player's own)."""
    if turn_started_at is None:
        return timedelta()
    begun = max(closed_at, turn_started_at)
    ended = min(back_at, closed_at + cap)
    return max(timedelta(), ended - begun)


def clock_history(game):
    """Each player's time left (ms, by player index) after each ply of a realtime game, from
    the start: as stored with each action, or for actions stored before the rows carried it,
    the clock arithmetic above run over the stored actions' times (stored a moment
    after the server charged the clock, so a value may differ from the live clock by
    milliseconds). None for correspondence and untimed games."""
    tc = game.time_control
    if not tc.is_realtime:
        return None
    rows = list(game.action_rows.order_by("ply").values_list("remaining0_ms", "remaining1_ms"))
    if all(left[0] is not None for left in rows):
        # Stored with each action: exact, and right across a takeback, which restarts a turn
        # at its acceptance (the rows' times alone would charge the taken-back time).
        return [[tc.start_ms, tc.start_ms], *(list(left) for left in rows)]
    # Actions stored before their rows carried the clocks: the arithmetic over their times.
    state = game.engine.new(**game.options)
    left, turn_started = [tc.start_ms, tc.start_ms], game.created_at
    history = [list(left)]
    for action, player, at in (game.action_rows.order_by("ply")
                               .values_list("action", "player", "created_at")):
        state = state.play(action)
        # The player to move next: the side to move, through Tripen's swap if it happened.
        following = None if state.is_over else state.person_to_move
        left, turn_started = after_action(tc, left, player, following, turn_started, at,
                                          game.berserk)
        history.append(list(left))
        if turn_started is None:
            break
    return history
