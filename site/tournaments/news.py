"""What an event's page sockets hear: a bare "the standings changed" per event, sent after the
commit (live.outbox), to every process. Each process then reads and encodes the standings once
for all its sockets of that event, at most once a second (tournaments.consumers)."""
from live import groups, outbox


group_of = groups.tournament


def changed(tournament_id):
    """Queue the news for after the current transaction commits."""
    news = {"type": "tournament.changed", "tournament_id": tournament_id}
    outbox.send_after_commit(groups.tournament(tournament_id), news)
