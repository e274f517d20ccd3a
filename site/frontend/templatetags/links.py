"""`{% link "ratings:leaderboard" %}`, `{% link "rules:game" guide.name %}`: a page's URL as
`{% url %}` gives it, reversed once per process (and script prefix, URL configuration and
arguments) instead of on every render: base.html's header and footer name a dozen pages on
every page, and reverse() was a third of a small page's template time. For the site's own
few pages (names, games, steps), not for URLs of users' or games' ids: those would only
churn the kept ones."""
from functools import lru_cache

from django import template
from django.conf import settings
from django.urls import get_script_prefix, get_urlconf, reverse

register = template.Library()


@lru_cache(maxsize=512)
def _reversed(name, args, prefix, urlconf):
    # reverse() reads the script prefix itself: it is part of the key, not passed.
    return reverse(name, args=args, urlconf=urlconf)


@register.simple_tag
def link(name, *args):
    return _reversed(name, args, get_script_prefix(), get_urlconf() or settings.ROOT_URLCONF)
