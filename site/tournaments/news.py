"""What an event's page sockets hear: a bare "the standings changed" per event, sent after the
commit (live.outbox), to every process. Each process then reads and encodes the standings once
for all its sockets of that event, at most once a second (tournaments.consumers)."""
from django.db import transaction

from live import outbox


def group_of(tournament_id):
    return f"tournament-{tournament_id}"


def changed(tournament_id):
    """Queue the news for after the current transaction commits."""
    news = {"type": "tournament.changed", "tournament_id": tournament_id}
    transaction.on_commit(lambda: outbox.send(group_of(tournament_id), news))
