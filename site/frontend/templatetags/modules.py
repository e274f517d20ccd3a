"""`{% module_preloads "js/game.js" "js/boards/hex.js" %}`: a <link rel="modulepreload"> for
every module of the entries' import graph (frontend.modules), so the browser fetches them all
in parallel as soon as it reads the page's head."""
from django import template
from django.templatetags.static import static
from django.utils.html import format_html_join

from frontend.modules import graph

register = template.Library()


@register.simple_tag
def module_preloads(*entries):
    return format_html_join("\n  ", '<link rel="modulepreload" href="{}">',
                            ((static(path),) for path in graph(*[e for e in entries if e])))
