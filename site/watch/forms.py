"""The Watch page's filter (GET ?game=hadron), shared by the page and its socket so the live
updates follow the same filter as the list they update."""
from django import forms

from play.labels import game_titles


def game_choices():
    return [("", "All games")] + game_titles()


class WatchFilter(forms.Form):
    game = forms.ChoiceField(required=False, choices=game_choices)

    @classmethod
    def from_query(cls, query):
        """The filter of a query dict (request.GET or a parsed query string). An unknown game
        is not an error worth a page of its own: the form keeps its message and lists all."""
        return cls(data={"game": query.get("game", "")})

    def kind(self):
        """The chosen game's engine name, or None for every game."""
        return (self.cleaned_data.get("game") or None) if self.is_valid() else None
