"""The "Play the computer" form: the new-game form's game, board and side, with a level
instead of an opponent, and a clock that is either none or real time (a computer answers in
seconds, so a correspondence clock would only slow the person down)."""
from django import forms

from bots import accounts
from lobby.forms import ProposalForm

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
        self.fields["level"].choices = [(level, accounts.level_name(level).capitalize())
                                        for level in levels]
        self.fields["level"].initial = levels[0]
        self.fields["side"].label = "Your side"

    def computer_game(self) -> dict:
        """The validated choice, as bots.services.start_computer_game takes it."""
        data = self.cleaned_data
        return {"game": data["game"], "options": data["options"], "level": data["level"],
                "side": data["side"], "time_control": data["time_control"]}
