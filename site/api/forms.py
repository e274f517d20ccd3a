from django import forms

from api.models import Scope


class TokenForm(forms.Form):
    name = forms.CharField(max_length=60, help_text="What the token is for, e.g. “my bot”.")
    scopes = forms.MultipleChoiceField(choices=Scope.choices,
                                       widget=forms.CheckboxSelectMultiple)
    days = forms.TypedChoiceField(
        label="Expires", choices=[("", "never (until revoked)"), ("30", "in 30 days"),
                                  ("90", "in 90 days"), ("365", "in a year")],
        coerce=int, empty_value=None, required=False)

    def __init__(self, *args, bot=False, **kwargs):
        super().__init__(*args, **kwargs)
        if not bot:
            self.fields["scopes"].choices = [c for c in Scope.choices if c[0] != Scope.BOT]


class UpgradeForm(forms.Form):
    confirm = forms.BooleanField(
        label="I understand: this account will play only through the API, for good.")
