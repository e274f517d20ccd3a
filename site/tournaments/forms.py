"""The form that creates an event: the lobby's game, board and clock fields (the engine has
the last word on the board), plus the format's own: when, how long, how many rounds or
players."""
from datetime import timedelta

from django import forms
from django.utils import timezone

from lobby.forms import ProposalForm
from tournaments.formats.roundrobin import MAX_PLAYERS, MIN_PLAYERS
from tournaments.models import Tournament

DURATION = (20, 120)        # arena minutes
ROUNDS = (3, 15)            # Swiss
ROUND_DAYS = (1, 30)        # correspondence Swiss: days from one round to the next
PLAYERS = (2, 1000)
STARTS_IN = (0, 7 * 24 * 60)  # minutes from now: up to a week ahead


class TournamentForm(ProposalForm):
    name = forms.CharField(max_length=80, help_text="e.g. “Friday Hadron arena”")
    kind = forms.ChoiceField(label="Format", choices=Tournament.KINDS, initial=Tournament.ARENA)
    starts_in = forms.IntegerField(label="Starts in (minutes)", initial=10,
                                   min_value=STARTS_IN[0], max_value=STARTS_IN[1])
    duration = forms.IntegerField(label="Arena: minutes", required=False, initial=60,
                                  min_value=DURATION[0], max_value=DURATION[1])
    rounds = forms.IntegerField(label="Swiss: rounds", required=False, initial=5,
                                min_value=ROUNDS[0], max_value=ROUNDS[1])
    round_days = forms.IntegerField(
        label="Swiss, correspondence: days per round", required=False,
        min_value=ROUND_DAYS[0], max_value=ROUND_DAYS[1],
        help_text="Empty (and with a real-time clock): a round starts when the last game of "
                  "the one before ends.")
    double = forms.BooleanField(label="Round robin: both sides (double)", required=False)
    max_players = forms.IntegerField(label="Most players", required=False,
                                     min_value=PLAYERS[0], max_value=PLAYERS[1])
    official = forms.BooleanField(label="Official (operators)", required=False)

    field_order = ["name", "kind", "game", "starts_in", "duration", "rounds", "round_days",
                   "double",
                   "max_players", "time_kind", "minutes", "increment", "days", "rated"]

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("side", "rating_range", "opponent"):
            del self.fields[name]
        if user is None or not user.is_staff:
            del self.fields["official"]
        self.order_fields(self.field_order)

    def clean(self):
        cleaned = super().clean()
        kind = cleaned.get("kind")
        time_control = cleaned.get("time_control")
        if kind == Tournament.ARENA:
            if cleaned.get("duration") is None and not self.has_error("duration"):
                self.add_error("duration", f"An arena lasts {DURATION[0]} to {DURATION[1]} "
                                           "minutes.")
            if time_control and time_control.kind != "realtime":
                self.add_error("time_kind", "An arena is played with a real-time clock.")
        elif kind == Tournament.SWISS:
            if cleaned.get("rounds") is None and not self.has_error("rounds"):
                self.add_error("rounds", f"A Swiss event has {ROUNDS[0]} to {ROUNDS[1]} rounds.")
        if kind in (Tournament.SWISS, Tournament.ROUND_ROBIN) and time_control \
                and time_control.kind == "untimed":
            self.add_error("time_kind", "Rounds need a clock: real time or correspondence.")
        players = cleaned.get("max_players")
        if kind == Tournament.ROUND_ROBIN and players is not None and not (
                MIN_PLAYERS <= players <= MAX_PLAYERS):
            self.add_error("max_players", f"A round robin has {MIN_PLAYERS} to {MAX_PLAYERS} "
                                          "players.")
        return cleaned

    def event(self):
        """The validated event, as services.create takes it."""
        data = self.cleaned_data
        return {"name": data["name"].strip(), "kind": data["kind"], "game": data["game"],
                "options": data["options"], "time_control": data["time_control"],
                "rated": data["rated"],
                "starts_at": timezone.now() + timedelta(minutes=data["starts_in"]),
                "minutes": data.get("duration"), "rounds": data.get("rounds"),
                "round_days": data.get("round_days"), "double": data.get("double", False), "max_players": data.get("max_players"),
                "official": data.get("official", False)}
