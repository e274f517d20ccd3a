"""A player's rating history for one game as an SVG line chart, drawn on the server (the
profile page): one point per rated game, gridlines at round ratings, the first and last dates
under it. Colours are CSS classes (static/css/ratings.css) so both themes restyle it."""
from django.utils.dateformat import format as date_format
from django.utils.html import escape

from ratings.display import change_text

# In the viewBox's units; the chart is drawn about this wide on a profile, so the 13-unit
# labels read at the page's small text size.
WIDTH, HEIGHT = 460, 190
LEFT, RIGHT, TOP, BOTTOM = 46, 10, 12, 28
STEPS = (25, 50, 100, 200, 250, 500, 1000)
# A dot per game (with its tooltip) while there are few enough to tell apart.
MAX_DOTS = 80


def nice_step(span):
    """Gridline spacing: a round number giving about four lines."""
    return next((step for step in STEPS if span / step <= 5), STEPS[-1])


def history_svg(title, changes, width=WIDTH, height=HEIGHT) -> str:
    """The chart of `changes` (RatingChange rows of one player and game, oldest first),
    starting from the rating before the first of them. '' when there is nothing to draw."""
    if not changes:
        return ""
    ratings = [changes[0].rating_before] + [change.rating_after for change in changes]
    low, high = min(ratings), max(ratings)
    step = nice_step(max(high - low, 100))
    bottom = (low // step) * step
    top = -(-high // step) * step
    if top - bottom < 2 * step:
        top = bottom + 2 * step
    plot_w, plot_h = width - LEFT - RIGHT, height - TOP - BOTTOM

    def x(index):
        return LEFT + plot_w * index / max(1, len(ratings) - 1)

    def y(rating):
        return TOP + plot_h * (top - rating) / (top - bottom)

    parts = [f'<svg class="rating-graph" viewBox="0 0 {width} {height}" role="img" '
             f'aria-label="{escape(summary(title, changes))}">',
             f"<title>{escape(summary(title, changes))}</title>"]
    level = bottom
    while level <= top:
        parts.append(f'<line class="grid" x1="{LEFT}" x2="{width - RIGHT}" '
                     f'y1="{y(level):.1f}" y2="{y(level):.1f}"/>'
                     f'<text class="axis" x="{LEFT - 6}" y="{y(level) + 4.5:.1f}" '
                     f'text-anchor="end">{int(level)}</text>')
        level += step
    points = " ".join(f"{x(i):.1f},{y(r):.1f}" for i, r in enumerate(ratings))
    parts.append(f'<polyline class="line" points="{points}"/>')
    if len(changes) <= MAX_DOTS:
        for i, change in enumerate(changes, start=1):
            parts.append(f'<circle class="dot {change.result}" cx="{x(i):.1f}" '
                         f'cy="{y(change.rating_after):.1f}" r="3.5">'
                         f"<title>{escape(point_text(change))}</title></circle>")
    first, last = changes[0].created_at, changes[-1].created_at
    parts.append(f'<text class="axis" x="{LEFT}" y="{height - 6}">{date_format(first, "j M Y")}</text>'
                 f'<text class="axis" x="{width - RIGHT}" y="{height - 6}" text-anchor="end">'
                 f'{date_format(last, "j M Y")}</text>')
    parts.append("</svg>")
    return "".join(parts)


def summary(title, changes):
    start, end = round(changes[0].rating_before), round(changes[-1].rating_after)
    games = len(changes)
    return (f"{title} rating from {start} to {end} over {games} rated "
            f"game{'' if games == 1 else 's'}")


def point_text(change):
    return (f"{date_format(change.created_at, 'j M Y')}: {change.after} "
            f"({change_text(change.change)}), {change.result} against {change.opponent.get_username()}")
