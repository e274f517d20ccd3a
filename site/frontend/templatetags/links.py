"""`{% link "ratings:leaderboard" %}`: the URL of a page that takes no arguments, as `{% url %}`
gives it, reversed once per process (and script prefix, and URL configuration) instead of on
every render: base.html's header and footer name a dozen such pages on every page, and
reverse() was a third of a small page's template time."""
from functools import lru_cache

from django import template
from django.conf import settings
from django.urls import get_script_prefix, get_urlconf, reverse

register = template.Library()


@lru_cache(maxsize=256)
def _reversed(name, prefix, urlconf):
    # reverse() reads the script prefix itself: it is part of the key, not passed.
    return reverse(name, urlconf=urlconf)


@register.simple_tag
def link(name):
    return _reversed(name, get_script_prefix(), get_urlconf() or settings.ROOT_URLCONF)
