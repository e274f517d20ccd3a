"""`{% module_preloads "js/game.js" "js/boards/hex.js" %}`: a <link rel="modulepreload"> for
every module of the entries' import graph (frontend.modules), so the browser fetches them all
in parallel as soon as it reads the page's head."""
from functools import lru_cache

from django import template
from django.conf import settings
from django.templatetags.static import static
from django.urls import get_script_prefix
from django.utils.html import format_html_join

from frontend.modules import graph

register = template.Library()


@register.simple_tag
def module_preloads(*entries):
    entries = tuple(e for e in entries if e)
    if settings.DEBUG:
        return _links(entries)   # the modules change while one works on them (graph())
    return _kept(entries, settings.STATIC_URL, get_script_prefix())


@lru_cache(maxsize=64)
def _kept(entries, static_url, prefix):
    # The same links for the same entries (and static URL and script prefix: static() reads
    # both) as long as the process runs: thirty static() calls a game page, drawn once.
    return _links(entries)


def _links(entries):
    return format_html_join("\n  ", '<link rel="modulepreload" href="{}">',
                            ((static(path),) for path in graph(*entries)))
