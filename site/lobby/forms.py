"""The new-game form: game, board options, time control, side; plus the opponent for a direct
challenge.

Each game's options get their own fields, named `<game>_<option>` (`hadron_size`,
`colorful_board`, ...), built from the engine's option_choices(): the page shows only the chosen
game's fields (lobby.js), and without JavaScript every select is still there and unambiguous.
The engine has the last word on the combination (normalize_options), so e.g. a long Colorful
board of size 3 is refused with the engine's own message.
"""
from django import forms
from django.contrib.auth import get_user_model

import games
from accounts.models import Profile
from lobby.models import RATING_RANGES, Side
from play.clock import TimeControl
from play.labels import game_titles, options_text

TIME_KINDS = [
    ("realtime", "Real time"),
    ("correspondence", "Correspondence"),
    ("untimed", "Untimed"),
]
OPPONENT_ATTRS = {"placeholder": "username", "autocomplete": "off", "spellcheck": "false",
                  "autocapitalize": "none"}
DEFAULT_GAME = "hadron"  # the quickest to learn and to play
MODES = [("rated", "Rated"), ("casual", "Casual")]
RANGE_CHOICES = [("", "Any rating")] + [(str(points), text) for points, text in RATING_RANGES]


def option_field_name(game: str, option: str) -> str:
    return f"{game}_{option}"


def seek_fields(game: str, options: dict, time_control: TimeControl, rated: bool = True,
                rating_range: int | None = None) -> dict:
    """The new-game form's fields for a seek of this game, options, time control, mode and
    rating range (side random): what "New opponent" after a game and "Post it again" post."""
    fields = {"game": game, "time_kind": time_control.kind, "side": "random",
              "rated": "rated" if rated else "casual"}
    if rating_range is not None:
        fields["rating_range"] = rating_range
    fields.update({option_field_name(game, option): value for option, value in options.items()})
    for name in ("minutes", "increment", "days"):
        value = getattr(time_control, name)
        if value is not None:
            fields[name] = value
    return fields


class ProposalForm(forms.Form):
    """A seek: what to play and how. `proposal()` gives the validated result."""

    game = forms.ChoiceField(choices=[])
    time_kind = forms.ChoiceField(label="Time control", choices=TIME_KINDS, initial="realtime",
                                  widget=forms.RadioSelect)
    minutes = forms.IntegerField(label="Minutes", required=False, initial=10,
                                 min_value=1, max_value=180)
    increment = forms.IntegerField(label="Increment (s)", required=False, initial=5,
                                   min_value=0, max_value=60)
    days = forms.IntegerField(label="Days per move", required=False, initial=3,
                              min_value=1, max_value=14)
    side = forms.ChoiceField(label="Your side", choices=Side.choices, initial=Side.RANDOM)
    # Rated unless the player says casual (a post without the field is rated too).
    rated = forms.TypedChoiceField(label="Rated or casual", choices=MODES, initial="rated",
                                   coerce=lambda mode: mode == "rated", empty_value=True,
                                   required=False, widget=forms.RadioSelect)
    rating_range = forms.TypedChoiceField(
        label="Opponent's rating", choices=RANGE_CHOICES, coerce=int, empty_value=None,
        required=False, help_text="Around yours, for this game. Open seeks only.")
    # Shown beside the challenge button of the same page; an open seek has no opponent.
    opponent = forms.CharField(label="Or challenge a player", max_length=150, required=False,
                               widget=forms.TextInput(attrs=OPPONENT_ATTRS))

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = game_titles()
        self.fields["game"].initial = DEFAULT_GAME
        for name in games.names():
            engine = games.get(name)
            for option, values in engine.option_choices().items():
                # Labels and values in the engine's words (Game.option_names, option_value_text).
                self.fields[option_field_name(name, option)] = forms.TypedChoiceField(
                    label=engine.option_names.get(option, option.capitalize()),
                    choices=[(value, engine.option_value_text(option, value)) for value in values],
                    coerce=type(values[0]),
                    initial=engine.defaults.get(option),
                    required=False,
                )

    def option_groups(self):
        """(game, title, bound option fields) for each game, for the template."""
        return [
            (name, games.get(name).title,
             [self[option_field_name(name, option)] for option in games.get(name).option_choices()])
            for name in games.names()
        ]

    def clean(self):
        cleaned = super().clean()
        game = cleaned.get("game")
        if game:
            self.forget_other_games(game)
            cleaned["options"] = self.clean_options(game, cleaned)
        if cleaned.get("time_kind"):
            cleaned["time_control"] = self.clean_time_control(cleaned)
        return cleaned

    def forget_other_games(self, game: str) -> None:
        """The options of the games not chosen don't matter, even when garbled: their fields
        are hidden, so an error there could not be seen."""
        for name in games.names():
            if name != game:
                for option in games.get(name).option_choices():
                    self._errors.pop(option_field_name(name, option), None)

    def clean_options(self, game: str, cleaned: dict) -> dict | None:
        engine = games.get(game)
        options = {}
        for option in engine.option_choices():
            value = cleaned.get(option_field_name(game, option))
            if value not in (None, ""):
                options[option] = value
        if any(self.has_error(option_field_name(game, o)) for o in engine.option_choices()):
            return None
        try:
            return engine.normalize_options(**options)
        except ValueError as error:
            # Blame the last option the engine names, else the size: the field a player changes.
            field = option_field_name(game, "size" if "size" in options else next(iter(options), ""))
            self.add_error(field if field in self.fields else None, str(error))
            return None

    def clean_time_control(self, cleaned: dict) -> TimeControl | None:
        kind = cleaned["time_kind"]
        if any(self.has_error(name) for name in ("minutes", "increment", "days")):
            return None
        if kind == "realtime":
            for name in ("minutes", "increment"):
                if cleaned.get(name) is None:
                    self.add_error(name, "A real-time game needs minutes and an increment.")
                    return None
            tc = TimeControl(kind=kind, minutes=cleaned["minutes"], increment=cleaned["increment"])
            field = "minutes"
        elif kind == "correspondence":
            if cleaned.get("days") is None:
                self.add_error("days", "Say how many days each move may take.")
                return None
            tc = TimeControl(kind=kind, days=cleaned["days"])
            field = "days"
        else:
            tc, field = TimeControl(kind="untimed"), None
        try:
            tc.validate()
        except ValueError as error:
            self.add_error(field, str(error))
            return None
        return tc

    def proposal(self) -> dict:
        """The validated offer, as services.create_seek / create_challenge take it."""
        data = self.cleaned_data
        return {"game": data["game"], "options": data["options"],
                "time_control": data["time_control"], "side": data["side"],
                "rated": data["rated"]}

    def seek(self) -> dict:
        """The validated open seek, as services.create_seek takes it."""
        return {**self.proposal(), "rating_range": self.cleaned_data["rating_range"]}

    def summary(self) -> str:
        data = self.cleaned_data
        title = games.get(data["game"]).title
        mode = "rated" if data["rated"] else "casual"
        return (f"{title}, {options_text(data['game'], data['options'])}, "
                f"{data['time_control'].text}, {mode}")


class ChallengeForm(ProposalForm):
    """A seek addressed to one player, as pbmserv's `challenge` names both players."""

    opponent = forms.CharField(label="Or challenge a player", max_length=150,
                               widget=forms.TextInput(attrs=OPPONENT_ATTRS),
                               error_messages={"required": "Name the player you challenge."})

    def __init__(self, *args, challenger=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.challenger = challenger

    def clean_opponent(self):
        name = self.cleaned_data["opponent"].strip()
        User = get_user_model()
        opponent = User.objects.filter(username__iexact=name, is_active=True).first()
        if opponent is None:
            raise forms.ValidationError(f"There is no player called “{name}”.")
        if self.challenger is not None and opponent.pk == self.challenger.pk:
            raise forms.ValidationError("You cannot challenge yourself.")
        if Profile.objects.filter(user=opponent, is_bot=True).exists():
            # A computer answers no challenge: its games start from "Play the computer".
            raise forms.ValidationError(
                f"{opponent.username} is a computer: play it with “Play the computer”.")
        return opponent

    def proposal(self) -> dict:
        return {**super().proposal(), "opponent": self.cleaned_data["opponent"]}
