"""The Watch page: games in progress, newest first, and the featured game. Rendered whole by
the server (it works without JavaScript); static/js/watch.js keeps it live over /ws/watch/."""
from django.shortcuts import render
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_GET

from frontend import kept
from watch import services
from watch.forms import WatchFilter


@require_GET
def watch(request):
    form = WatchFilter.from_query(request.GET)
    kind = form.kind()
    shown = services.page(kind)
    # Drawn once for what it shows, for visitors who are not signed in (frontend.kept).
    return kept.page(request, shown.facts, lambda: draw(request, form, kind, shown))


def draw(request, form, kind, shown):
    rows, items, row = shown.drawn()
    featured = shown.featured
    context = {
        "form": form,
        "kind": kind,
        "choices": form.fields["game"].choices,
        "rows": rows,
        # The list items, kept whole (watch.services.drawn_rows): one string for the template.
        "row_items": mark_safe("".join(items)),
        "total": shown.total,
        "limit": services.LIMIT,
        "featured": row,
        # For the page script; the picture is in the page already.
        "featured_data": {k: v for k, v in row.items() if k != "thumbnail"} if row else None,
        # The no-JavaScript picture of the featured game; the page script replaces it with a
        # live board.
        "featured_board": mark_safe(services.picture(featured, labels=True)) if featured else "",
    }
    return render(request, "watch/index.html", context)
