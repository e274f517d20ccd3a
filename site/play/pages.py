"""A finished game's page, kept drawn: the apps above play fill the hooks at their ready()
(play imports none of them, docs/design.md "Floors").

A finished game's page changes only with what is stored beside the game (its analysis), so
an app above may keep it drawn for visitors who are not signed in: the archive hands the
keeper (frontend.kept.page), the analysis app the stored panel the page shows."""

_facts = []
_keeper = None


def add_fact(part):
    """part(game): something more a finished game's page shows, repr-able."""
    _facts.append(part)


def keep_with(keeper):
    """keeper(request, facts, draw): the page, drawn by draw() or kept for facts."""
    global _keeper
    _keeper = keeper


def page(request, game, snapshot, draw):
    """The game's page: drawn now, or kept for what it shows when the game is over (a game in
    progress changes from one moment to the next: its clocks, its players' presence)."""
    if _keeper is None or game.is_active:
        return draw()
    # The snapshot but the moment it was read (its clocks' server_time, which the page's
    # script reads only for a player's claim).
    still = {**snapshot, "clocks": {k: v for k, v in snapshot["clocks"].items()
                                    if k != "server_time"}}
    return _keeper(request, (still, *(part(game) for part in _facts)), draw)
