"""The "Play the computer" form: the new-game form's game, board and side, with a level
instead of an opponent, and a clock that is either none or real time (a computer answers in
seconds, so a correspondence clock would only slow the person down).

Beside the levels it shows each level's rating at the chosen game: the computers are rated in
their games against people like anyone (ratings), and a level that has played no rated game
of that kind is "new". A level that thinks longer than a realtime clock allows (Master,
games.bots `untimed_only`) is refused with a realtime clock."""
from django import forms

import games
from bots import accounts
from games import bots as engine_bots
from lobby.forms import ProposalForm
from ratings import display

TIME_KINDS = [("untimed", "Untimed"), ("realtime", "Real time")]


class ComputerForm(ProposalForm):
    time_kind = forms.ChoiceField(label="Clock", choices=TIME_KINDS, initial="untimed",
                                  widget=forms.RadioSelect)
    level = forms.TypedChoiceField(label="Level", choices=[], coerce=int)

    # What a game against a computer does not have: a mode to choose (its games are rated like
    # anyone's), a rating range, an opponent, days per move.
    DROPPED = ("rated", "rating_range", "opponent", "days")

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("prefix", "computer")
        super().__init__(*args, **kwargs)
        for name in self.DROPPED:
            del self.fields[name]
        levels = accounts.levels()
        self.fields["level"].choices = [(level, self.level_label(level)) for level in levels]
        self.fields["level"].initial = levels[0]
        self.fields["side"].label = "Your side"

    @staticmethod
    def level_label(level) -> str:
        name = accounts.level_name(level).capitalize()
        return f"{name} (untimed only)" if _untimed_only(level) else name

    def clean(self):
        cleaned = super().clean()
        level = cleaned.get("level")
        if level is not None and _untimed_only(level) and cleaned.get("time_kind") == "realtime":
            seconds = engine_bots.LEVELS[level].cap
            self.add_error("level", f"{accounts.level_name(level).capitalize()} thinks up to "
                                    f"{seconds:g} s a move, more than a clock leaves it: "
                                    f"choose no clock, or another level.")
        return cleaned

    def level_ratings(self) -> list:
        """Per game: (engine name, title, [(level name, rating text)]), the rating of each
        level's account at that game as shown beside its name, or "new" where the level has
        played no rated game of it (or has no account yet)."""
        from bots.models import Bot

        found = {bot.level: bot.user
                 for bot in Bot.objects.select_related("user").filter(level__in=accounts.levels())}
        display.prefetch(list(found.values()))
        table = []
        for name in games.names():
            rows = []
            for level in accounts.levels():
                user = found.get(level)
                standing = display.standing(user, name) if user is not None else None
                text = standing.text if standing is not None and standing.games else "new"
                rows.append((accounts.level_name(level).capitalize(), text))
            table.append((name, games.get(name).title, rows))
        return table

    def computer_game(self) -> dict:
        """The validated choice, as bots.services.start_computer_game takes it."""
        data = self.cleaned_data
        return {"game": data["game"], "options": data["options"], "level": data["level"],
                "side": data["side"], "time_control": data["time_control"]}


def _untimed_only(level) -> bool:
    spec = engine_bots.LEVELS.get(level)
    return spec is not None and spec.untimed_only
