"""The Archive's search form (GET): which finished games to list.

Every field is optional; an empty form lists every finished game. The form checks the
combinations a person can get wrong (a size the chosen game does not have, a Colorful board
variant with another game, wins of nobody, a date range backwards) and says so in words,
so a hand-edited URL shows form errors, never a server error.
"""
from datetime import date
from functools import lru_cache

from django import forms
from django.contrib.auth import get_user_model
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import connection

import games
from live.sql import read, written
from play.labels import game_titles
from archive.positions import parse_line

VARIANT_GAME = "colorful"  # the only game with board variants
# In the engine's words, like every other page (Game.option_value_text).
VARIANTS = [(value, games.get(VARIANT_GAME).option_value_text("board", value))
            for value in games.get(VARIANT_GAME).option_choices()["board"]]

RESULTS = [
    ("", "Any result"),
    ("won", "Won by the player"),
    ("lost", "Lost by the player"),
    ("first", "First mover won"),
    ("second", "Second mover won"),
    ("draw", "Draw"),
]
NEEDS_PLAYER = {"won", "lost"}

REASONS = [
    ("", "Any ending"),
    ("normal", "Played out"),
    ("resign", "Resignation"),
    ("time", "Time"),
]


# Dates a search may name: a century either side would do, but the bounds must stay far from
# date.min/date.max, which the query's "day after date_to" and time-zone shifts overflow.
FIRST_DAY = date(2000, 1, 1)
LAST_DAY = date(2999, 12, 31)
DATE_RANGE_MESSAGE = f"Enter a date from {FIRST_DAY.isoformat()} to {LAST_DAY.isoformat()}."


def date_field(label):
    return forms.DateField(
        required=False, label=label,
        validators=[MinValueValidator(FIRST_DAY, message=DATE_RANGE_MESSAGE),
                    MaxValueValidator(LAST_DAY, message=DATE_RANGE_MESSAGE)],
        widget=forms.DateInput(attrs={"type": "date", "min": FIRST_DAY.isoformat(),
                                      "max": LAST_DAY.isoformat()}))


def all_sizes():
    return sorted({size for name in games.names()
                   for size in games.get(name).option_choices()["size"]})


def size_label(size, game=None, variant=None):
    """A size in the words of the rest of the site: "5×5", "hexhex side 5", or, when no game
    is chosen (or the one chosen has no such size), every meaning it has ("hexhex side 5 or
    5×5"). The number alone says nothing: Hadron's 5 is a square of 25 cells, Copolymer's a
    hexagon of 61."""
    if game in games.names() and size in games.get(game).option_choices()["size"]:
        names = [game]
    else:
        names = games.names()
    labels = []
    for name in names:
        choices = games.get(name).option_choices()
        if size not in choices["size"]:
            continue
        options = {"size": size}
        if variant in choices.get("board", ()):
            options["board"] = variant
        label = games.get(name).option_label(options)
        if label not in labels:
            labels.append(label)
    return " or ".join(labels) or str(size)


@lru_cache(maxsize=64)
def size_choices(game, variant):
    """The size field's choices in the words of the chosen game and variant (worked out once:
    every Archive page makes the form)."""
    return [("", "Any size")] + [(s, size_label(s, game, variant)) for s in all_sizes()]


def game_choices():
    return [("", "All games")] + game_titles()


def started_events():
    from tournaments.models import Tournament

    return Tournament.objects.filter(status__in=[Tournament.RUNNING, Tournament.FINISHED])


def started_params():
    from tournaments.models import Tournament

    return [Tournament.RUNNING, Tournament.FINISHED]


@lru_cache(maxsize=None)
def _recent_statement(vendor, count):
    """The latest `count` started events' ids, written once per process (live.sql): every
    Archive page makes the form, and the ORM compiled it each time."""
    return written(started_events().order_by("-starts_at").values_list("pk")[:count])


@lru_cache(maxsize=None)
def _offered_statement(vendor, count):
    """The `count` events offered (EventField.offered()), written once per process."""
    return written(started_events().filter(pk__in=range(count)).order_by("-starts_at")
                   .values_list("pk", "name", "starts_at"), [*started_params(), *range(count)])


class EventField(forms.ModelChoiceField):
    """A tournament's games (its page links here with ?event=<id>): the latest events are
    offered, and whichever the link names."""

    OFFERED = 100

    def __init__(self):
        from tournaments.models import Tournament

        super().__init__(queryset=Tournament.objects.none(), required=False,
                         label="Tournament", empty_label="Any game")
        self.recent = []

    def offer(self, asked):
        recent = [pk for (pk,) in read(_recent_statement(connection.vendor, self.OFFERED))]
        if isinstance(asked, str) and asked.isdigit() and len(asked) < 19:
            recent.append(int(asked))
        self.recent = list(dict.fromkeys(recent))  # as the ORM's IN () has them
        self.queryset = started_events().filter(pk__in=recent).order_by("-starts_at")

    def offered(self):
        """(id, name, start) of the events offered, as the queryset lists them."""
        if not self.recent:
            return []
        count = len(self.recent)
        return [tuple(row) for row in read(_offered_statement(connection.vendor, count),
                                           [*started_params(), *self.recent])]

    def label_from_instance(self, event):
        return f"{event.name} ({event.starts_at:%Y-%m-%d %H:%M})"


class ArchiveFilter(forms.Form):
    game = forms.ChoiceField(required=False, choices=game_choices)
    player = forms.CharField(
        required=False, max_length=150,
        widget=forms.TextInput(attrs={"placeholder": "username", "autocomplete": "off",
                                      "spellcheck": "false", "autocapitalize": "none"}))
    result = forms.ChoiceField(required=False, choices=RESULTS)
    reason = forms.ChoiceField(required=False, choices=REASONS, label="Ending")
    size = forms.TypedChoiceField(required=False, coerce=int, empty_value=None,
                                  label="Board size")
    variant = forms.ChoiceField(required=False, choices=[("", "Any board")] + VARIANTS,
                                label="Board", help_text="Colorful Connection only")
    date_from = date_field("Finished from")
    date_to = date_field("to")
    event = EventField()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Every size stays a choice (a size the chosen game lacks gets clean()'s message), in
        # the words of the game chosen, if any.
        self.fields["size"].choices = size_choices(self.data.get("game"),
                                                   self.data.get("variant"))
        self.fields["event"].offer(self.data.get("event"))

    MAIN = ("game", "player")

    def main_fields(self):
        return [self[name] for name in self.MAIN]

    def more_fields(self):
        return [field for field in self if field.name not in self.MAIN]

    def more_in_use(self):
        """How many of the folded filters are set (or wrong): they are shown open then."""
        return sum(1 for field in self.more_fields()
                   if field.errors or (self.is_bound and self.data.get(field.html_name)))

    def clean_player(self):
        name = self.cleaned_data["player"].strip()
        if not name:
            return None
        try:
            return get_user_model().objects.get(username__iexact=name)
        except get_user_model().DoesNotExist:
            raise forms.ValidationError(f"There is no player called “{name}”.")

    def clean(self):
        data = super().clean()
        game, size, variant = data.get("game"), data.get("size"), data.get("variant")
        if variant and game and game != VARIANT_GAME:
            self.add_error("variant", f"Only {games.get(VARIANT_GAME).title} has board variants.")
        if game and size is not None:
            sizes = games.get(game).option_choices()["size"]
            if size not in sizes:
                self.add_error("size", f"{games.get(game).title} is played on sizes "
                                       f"{', '.join(map(str, sizes))}, not {size}.")
        if data.get("result") in NEEDS_PLAYER and "player" in data and data["player"] is None:
            self.add_error("result", "Name a player to see their wins or losses.")
        start, end = data.get("date_from"), data.get("date_to")
        if start and end and start > end:
            self.add_error("date_to", "The end date is before the start date.")
        return data

    def filters(self):
        """The cleaned filters with the empty ones left out (call after is_valid())."""
        return {key: value for key, value in self.cleaned_data.items()
                if value not in (None, "")}


class ExploreForm(forms.Form):
    """A scratch line from one position of a game: `ply` (0 .. the game's ply count) and
    `moves`, actions in the games' notation separated by commas, as in records."""

    ply = forms.IntegerField(min_value=0)
    moves = forms.CharField(required=False, max_length=8000)

    def __init__(self, *args, game, **kwargs):
        super().__init__(*args, **kwargs)
        self.game = game

    def clean_ply(self):
        ply = self.cleaned_data["ply"]
        if ply > self.game.ply_count:
            raise forms.ValidationError(
                f"This game has plies 0 to {self.game.ply_count}, not {ply}.")
        return ply

    def clean_moves(self):
        try:
            return parse_line(self.cleaned_data["moves"])
        except ValueError as error:
            raise forms.ValidationError(str(error))
