"""Ratings in templates, through ratings.display (the JSON payloads carry the same badge):

* `{% rating player game %}`: the player's rating for that game (engine name) as it stands
  now, "1523", or "1523?" while provisional, in a <span class="rating">.
* `{% rating_badge badge %}`: the same from a payload's badge {"rating", "provisional"}
  (lobby seeks and challenges, Watch rows), so a server-rendered row and one the page script
  builds from the socket's JSON look alike (static/js/ratings.js).
  A computer player's badge carries its level: a "BOT 3" mark comes first (computer_mark).
* `{% computer_mark player %}`: the same mark beside a name without a rating (a profile).
* `{{ change|rating_change }}`: +12, −8, ±0.
* `{% profile_ratings player %}`: the ratings part of a profile page, with the charts.
"""
from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe

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


def computer_mark_html(level):
    """The BOT mark of a computer player at `level`, or of a bot account (level None: a
    program playing through the API); static/js/ratings.js draws the same."""
    if level is None:
        return mark_safe('<span class="computer-mark" title="bot account">BOT</span> ')
    return format_html('<span class="computer-mark" title="computer player, level {} ({})">'
                       'BOT {}</span> ', level, display.computers.level_name(level), level)


@register.simple_tag
def rating(player, game):
    if player is None or not game:
        return ""
    found = display.standing(player, game)
    html = badge_html(found.rating, found.provisional, found.deviation)
    return mark_of(display.marked(player.pk, {})) + html


def mark_of(badge):
    """The BOT mark a badge asks for ("computer": level, or "bot"), or nothing."""
    if badge.get("computer") is not None:
        return computer_mark_html(badge["computer"])
    if badge.get("bot"):
        return computer_mark_html(None)
    return mark_safe("")


@register.simple_tag
def rating_badge(badge):
    if not badge:
        return ""
    return mark_of(badge) + badge_html(badge["rating"], badge["provisional"])


@register.simple_tag
def computer_mark(player):
    return mark_safe("") if player is None else mark_of(display.marked(player.pk, {}))


@register.filter
def rating_change(change):
    return display.change_text(int(change))


@register.inclusion_tag("ratings/_profile.html")
def profile_ratings(player):
    return {"player": player, "ratings": profiles.ratings_of(player)}
