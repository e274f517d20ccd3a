"""Ratings in templates, through ratings.display (the JSON payloads carry the same badge):

* `{% rating player game %}`: the player's rating for that game (engine name) as it stands
  now, "1523", or "1523?" while provisional, in a <span class="rating">.
* `{% rating_badge badge %}`: the same from a payload's badge {"rating", "provisional"}
  (lobby seeks and challenges, Watch rows), so a server-rendered row and one the page script
  builds from the socket's JSON look alike (static/js/ratings.js).
* `{{ change|rating_change }}`: +12, −8, ±0.
* `{% profile_ratings player %}`: the ratings part of a profile page, with the charts.
"""
from django import template
from django.utils.html import format_html

from ratings import display, profiles

register = template.Library()


def badge_html(rating, provisional, deviation=None):
    title = f"rating {rating}"
    if deviation is not None:
        title += f" ± {round(2 * deviation)}"
    if provisional:
        title += ", provisional"
    return format_html('<span class="rating{}" title="{}">{}{}</span>',
                       " provisional" if provisional else "", title, rating,
                       "?" if provisional else "")


@register.simple_tag
def rating(player, game):
    if player is None or not game:
        return ""
    found = display.standing(player, game)
    return badge_html(found.rating, found.provisional, found.deviation)


@register.simple_tag
def rating_badge(badge):
    if not badge:
        return ""
    return badge_html(badge["rating"], badge["provisional"])


@register.filter
def rating_change(change):
    return display.change_text(int(change))


@register.inclusion_tag("ratings/_profile.html")
def profile_ratings(player):
    return {"player": player, "ratings": profiles.ratings_of(player)}
