from django import forms


class ActionForm(forms.Form):
    """An action in the game's notation, and the actions already played in this step or
    puzzle (space-separated; replayed and checked by learn.services)."""
    action = forms.CharField(max_length=20, strip=True)
    moves = forms.CharField(max_length=400, required=False, widget=forms.HiddenInput)

    def clean_moves(self):
        return self.cleaned_data["moves"].split()
