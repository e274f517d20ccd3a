"""What can happen to a tournament: create, join, withdraw, pause, cancel, and the periodic
`tick` that starts events, pairs arena waves and Swiss rounds, and ends events.

check_* functions look up and refuse (TournamentError, nothing changed); the changes run in
one transaction holding the tournament's row lock (SELECT ... FOR UPDATE; SQLite: its one
writer), so two server processes ticking at once pair each free player once: the second sees
the games the first started. Games start through play.services.start_game, the door every
game comes through; their ends come back through play's one ending path (tournaments.results).
"""
import functools
from datetime import timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from bots import accounts as computers
from live import groups, lanes, process
from live import sql
from lobby.listing import game_started
from lobby.services import announce
from play.services import start_game
from tournaments import news, results
from tournaments.formats.arena import pair_wave
from tournaments.formats.arena import sides as arena_sides
from tournaments.formats import roundrobin, swiss
from tournaments.formats.roundrobin import MAX_PLAYERS, berger_rounds
from tournaments.formats.standings import swiss_standings
from tournaments.formats.swiss import FIRST, SECOND, SwissPlayer, pair_round
from tournaments.models import Bye, Entry, Pairing, Tournament
from tournaments.standings import table


class TournamentError(Exception):
    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def create(user, *, name, kind, game, options, time_control, rated, starts_at,
           minutes=None, rounds=None, double=False, max_players=None, official=False,
           schedule_key="", round_days=None):
    """A new upcoming event (the form, or the schedule, has validated the values); `user`
    None: the schedule's, official."""
    if kind == Tournament.ROUND_ROBIN:
        max_players = min(max_players or MAX_PLAYERS, MAX_PLAYERS)
    return Tournament.objects.create(
        name=name, kind=kind, game=game, options=options, time_kind=time_control.kind,
        minutes=time_control.minutes, increment=time_control.increment, days=time_control.days,
        rated=rated, starts_at=starts_at,
        ends_at=starts_at + timedelta(minutes=minutes) if kind == Tournament.ARENA else None,
        rounds=rounds if kind == Tournament.SWISS else None,
        round_days=round_days if kind == Tournament.SWISS and time_control.is_correspondence
        else None,
        double=double and kind == Tournament.ROUND_ROBIN,
        max_players=max_players or 1000, created_by=user, schedule_key=schedule_key,
        official=user is None or (official and user.is_staff))


def _locked(tournament_id):
    tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
    if tournament is None:
        raise TournamentError("not_found", "there is no such event")
    return tournament


def _over(tournament):
    if tournament.status in (Tournament.FINISHED, Tournament.CANCELLED):
        raise TournamentError("over", f"{tournament.name} is {tournament.status}")


def join(tournament_id, user):
    with transaction.atomic():
        tournament = _locked(tournament_id)
        check_join(tournament, user)
        entry = Entry.objects.filter(tournament=tournament, player=user).first()
        news.changed(tournament.pk)
        if entry is not None:  # an arena player who withdrew comes back
            entry.withdrawn = entry.paused = False
            entry.save(update_fields=["withdrawn", "paused"])
            return entry
        return Entry.objects.create(tournament=tournament, player=user)


def check_join(tournament, user):
    _over(tournament)
    entry = Entry.objects.filter(tournament=tournament, player=user).first()
    if entry is not None and not (entry.withdrawn and tournament.kind == Tournament.ARENA):
        raise TournamentError("already_joined", "you have already joined this event"
                              if not entry.withdrawn else "you have withdrawn from this event")
    if tournament.status == Tournament.RUNNING:
        if tournament.kind == Tournament.ROUND_ROBIN:
            raise TournamentError("started", "a round robin cannot be joined once it has begun")
        if tournament.kind == Tournament.SWISS and tournament.round >= 2:
            raise TournamentError("started", "a Swiss event can be joined until round 2 only")
    if entry is None and tournament.entries.count() >= tournament.max_players:
        raise TournamentError("full", f"{tournament.name} is full")
    if Pairing.objects.filter(ended_at__isnull=True, tournament__kind=Tournament.ARENA).filter(
            Q(first__player=user) | Q(second__player=user)).exclude(
            tournament=tournament).exists():
        raise TournamentError("in_game", "finish your game in another arena first")


def _entry(tournament, user):
    entry = Entry.objects.filter(tournament=tournament, player=user, withdrawn=False).first()
    if entry is None:
        raise TournamentError("not_joined", "you are not in this event")
    return entry


def withdraw(tournament_id, user):
    """No further pairing; a game in play goes on and counts."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _over(tournament)
        entry = _entry(tournament, user)
        entry.withdrawn = True
        entry.save(update_fields=["withdrawn"])
        news.changed(tournament.pk)


def pause(tournament_id, user, paused=True):
    """Arena: no new game for a paused player until they come back."""
    with transaction.atomic():
        tournament = _locked(tournament_id)
        _over(tournament)
        if tournament.kind != Tournament.ARENA:
            raise TournamentError("not_arena", "only an arena can be paused")
        entry = _entry(tournament, user)
        if entry.paused == paused:
            # Asking again (two tabs, or "come back" from a player already in the pairing,
            # maybe in a game now): nothing to change, and they are told why.
            raise TournamentError("unchanged", "you have paused already" if paused else
                                  "you are not paused: you are paired whenever you are free")
        entry.paused = paused
        entry.save(update_fields=["paused"])
        news.changed(tournament.pk)


def cancel(tournament_id, user):
    with transaction.atomic():
        tournament = _locked(tournament_id)
        if tournament.created_by_id != user.pk and not user.is_staff:
            raise TournamentError("forbidden", "only its creator or an operator may cancel it")
        if tournament.status != Tournament.UPCOMING:
            raise TournamentError("started", "only an event that has not begun can be cancelled")
        who = "its creator" if tournament.created_by_id == user.pk else "an operator"
        call_off(tournament, f"cancelled by {who} before its start")


def call_off(tournament, because):
    """Cancel the event (its row locked by the caller), saying why on its page and to each
    player who joined, over the notification socket wherever they are on the site."""
    tournament.status = Tournament.CANCELLED
    tournament.cancelled_because = because
    tournament.save(update_fields=["status", "cancelled_because"])
    notice = {"type": "tournament_cancelled", "tournament": tournament.pk,
              "url": tournament.get_absolute_url(),
              "message": f"{tournament.name} is cancelled: {because}."}
    for player_id in tournament.entries.filter(withdrawn=False).values_list("player_id",
                                                                              flat=True):
        announce(groups.user(player_id), notice)


def too_few(tournament):
    """The reason to call off an event that is starting with fewer players than its format
    needs (round robin 3, Swiss 2; an arena waits for players), else None."""
    needed = {Tournament.ROUND_ROBIN: roundrobin.MIN_PLAYERS,
              Tournament.SWISS: swiss.MIN_PLAYERS}.get(tournament.kind)
    if needed is None or tournament.entries.filter(withdrawn=False).count() >= needed:
        return None
    return f"fewer than {needed} players had joined at its start"


# -- the periodic job -----------------------------------------------------------------------

def tick(now=None):
    """Start what is due, pair who is free, end what is over: every event in its own
    transaction with its row locked. In one call: the tests, the scripts, a management
    command; the server runs `tick_live` instead, which starts an arena wave's games a few at
    a time."""
    now = now or timezone.now()
    for tournament_id in _due(now):
        _advance_locked(tournament_id, now)


def _due(now):
    return list(Tournament.objects.filter(
        Q(status=Tournament.UPCOMING, starts_at__lte=now) | Q(status=Tournament.RUNNING))
        .values_list("pk", flat=True))


def _advance_locked(tournament_id, now, waves=None):
    with transaction.atomic():
        tournament = _locked(tournament_id)
        before = (tournament.status, tournament.round)
        started = advance(tournament, now, waves)
        if started or (tournament.status, tournament.round) != before:
            news.changed(tournament.pk)


# Games of an arena wave started in one transaction by tick_live: each slice is a job on a
# writer thread, so the people's moves that arrived meanwhile go first (on SQLite the wave's
# 25 games in one transaction held the one writer for 100-200 ms of CPU every wave). One game
# a slice holds the writer for less than a game's end does.
WAVE_SLICE = 1


def plan(now=None):
    """The server's tick, first half (on a thread of its own): everything `tick` does, except
    that a running arena's wave is only worked out, read without a lock; returns
    [(tournament, [(first entry, second entry), ...])] for start_wave, the entries read with
    their players (what a start needs), so the writer's jobs only check and write."""
    now = now or timezone.now()
    waves = []
    for tournament_id in _due(now):
        tournament = Tournament.objects.filter(pk=tournament_id).first()
        if (tournament is not None and tournament.kind == Tournament.ARENA
                and tournament.status == Tournament.RUNNING and now < tournament.ends_at):
            if settings.TOURNAMENT_COMPUTERS and computers_to_change(tournament):
                with transaction.atomic():
                    fill_with_computers(_locked(tournament_id))
                    news.changed(tournament_id)
            pairs = _with_players(tournament, wave_pairs(tournament))
            if pairs:
                waves.append((tournament, pairs))
            continue
        _advance_locked(tournament_id, now, waves)
    return waves


def start_wave(tournament, pairs, now=None):
    """The server's tick, second half (a writer job per slice of a wave): start the planned
    arena games whose two players are still free, not paused nor withdrawn, under the event's
    row lock, so a player another process paired meanwhile is skipped; nothing once the
    arena is over. Returns the games started."""
    now = now or timezone.now()
    with transaction.atomic():
        state = _wave_state(tournament.pk)
        if state is None or state[0] != Tournament.RUNNING or now >= state[1]:
            return []
        free = _free_entries(tournament.pk, list({entry.pk for pair in pairs for entry in pair}))
        started = [_start(tournament, first, second) for first, second in pairs
                   if first.pk in free and second.pk in free]
        if started:
            news.changed(tournament.pk)
        return started


# A wave's slice checks its event and its players with two statements written once (live.sql)
# instead of three querysets compiled each time: every game an arena starts pays them.

def _wave_state(tournament_id):
    """(status, ends_at) of the event, its row locked; None if it is gone."""
    found = sql.fetch(_wave_state_sql(connection.vendor), [tournament_id])
    if not found:
        return None
    return tuple(sql.converted(found[0], sql.converters(
        [Tournament._meta.get_field("status"), Tournament._meta.get_field("ends_at")])))


@functools.lru_cache(maxsize=None)
def _wave_state_sql(vendor):
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    column = sql.column
    return (f"SELECT {column(Tournament, 'status')}, {column(Tournament, 'ends_at')} FROM "
            f"{sql.table(Tournament)} WHERE {column(Tournament, 'id')} = %s{lock}")


def _free_entries(tournament_id, entry_ids):
    """Of these entries of the event, those neither paused nor withdrawn and in no game of it
    in play."""
    if not entry_ids:
        return set()
    return {pk for pk, in sql.fetch(_free_entries_sql(connection.vendor, len(entry_ids)),
                                    [*entry_ids, False, False, tournament_id])}


@functools.lru_cache(maxsize=64)
def _free_entries_sql(vendor, count):
    column = sql.column
    entry, pairing = column(Entry, "id"), (lambda name: f"p.{column(Pairing, name)}")
    return (f"SELECT e.{entry} FROM {sql.table(Entry)} e WHERE e.{entry} IN "
            f"({', '.join(['%s'] * count)}) AND e.{column(Entry, 'paused')} = %s "
            f"AND e.{column(Entry, 'withdrawn')} = %s AND NOT EXISTS (SELECT 1 FROM "
            f"{sql.table(Pairing)} p WHERE {pairing('tournament')} = %s AND "
            f"{pairing('ended_at')} IS NULL AND ({pairing('first')} = e.{entry} OR "
            f"{pairing('second')} = e.{entry}))")


def slices(waves):
    """The planned waves as start_wave's calls: (tournament, at most WAVE_SLICE pairs)."""
    for tournament, pairs in waves:
        for at in range(0, len(pairs), WAVE_SLICE):
            yield tournament, pairs[at:at + WAVE_SLICE]


async def tick_live():
    """The tick as the server runs it (process.every): the plan on a thread of its own, then
    each arena wave's games WAVE_SLICE at a time, each slice a job on a writer thread."""
    for tournament, pairs in slices(await lanes.aside(process.on_thread(plan), timezone.now())):
        await lanes.write(start_wave, tournament, pairs)


def advance(tournament, now, waves=None):
    """Move the locked event on at `now`; `waves`: a list to add an arena's planned wave to
    (plan) instead of starting its games."""
    if tournament.status == Tournament.UPCOMING:
        if tournament.starts_at > now:
            return
        because = too_few(tournament)
        if because:
            return call_off(tournament, because)
        tournament.status = Tournament.RUNNING
        tournament.save(update_fields=["status"])
        if tournament.kind == Tournament.ROUND_ROBIN:
            return _start_round_robin(tournament, now)
    if tournament.status != Tournament.RUNNING:
        return
    in_play = tournament.pairings.filter(ended_at__isnull=True)
    if tournament.kind == Tournament.ARENA:
        if now < tournament.ends_at:
            return arena_wave(tournament, waves)
        if not in_play.exists() or now > tournament.ends_at + results.GRACE:
            _finish(tournament, now)
    elif (tournament.kind == Tournament.SWISS and tournament.round < tournament.rounds
          and (not in_play.exists() or tournament.next_round_due(now))):
        _swiss_round(tournament, now)
    elif not in_play.exists():
        _finish(tournament, now)


def _finish(tournament, now):
    tournament.status = Tournament.FINISHED
    tournament.finished_at = now
    tournament.save(update_fields=["status", "finished_at"])
    # Each player's final place, kept for their profile (the standings are worked out once).
    places = [Entry(pk=row["entry"], place=row["rank"]) for row in table(tournament)]
    Entry.objects.bulk_update(places, ["place"], batch_size=500)


def _start(tournament, first, second, round_=0):
    """A tournament game through play's one door, its pairing, and the players told."""
    game = start_game(game=tournament.game, options=tournament.options,
                      players=[first.player, second.player],
                      time_control=tournament.time_control, rated=tournament.rated)
    # Written once (live.sql): an arena's wave creates one a game.
    sql.create(Pairing(tournament=tournament, round=round_, game=game, first=first,
                       second=second))
    _paired(first, second)
    for entry in (first, second):
        announce(groups.user(entry.player_id),
                 {**game_started(game, f"Your {tournament.name} game has started"),
                  "tournament": tournament.pk})
    return game


def _paired(first, second):
    """Each entry's last opponent and side balance after this pairing, in its transaction (the
    one statement, written once: every game an arena starts pays it), so a wave need not read
    the event's every pairing (wave_pairs)."""
    with connection.cursor() as cursor:
        cursor.execute(_paired_sql(connection.vendor),
                       [first.pk, second.pk, first.pk, first.pk, first.pk, second.pk])
    first.last_opponent_id, second.last_opponent_id = second.pk, first.pk
    first.side_balance += 1
    second.side_balance -= 1


@functools.lru_cache(maxsize=None)
def _paired_sql(vendor):
    column, pk = sql.column, sql.column(Entry, "id")
    balance = column(Entry, "side_balance")
    return (f"UPDATE {sql.table(Entry)} SET {column(Entry, 'last_opponent')} = CASE {pk} "
            f"WHEN %s THEN %s ELSE %s END, {balance} = {balance} + CASE {pk} WHEN %s THEN 1 "
            f"ELSE -1 END WHERE {pk} IN (%s, %s)")


# Computer players fill an arena with fewer people than this (TOURNAMENT_COMPUTERS).
FEW_PEOPLE = 4


def fill_with_computers(tournament):
    """With fewer than FEW_PEOPLE people in, computer levels (lowest first) enter until the
    arena has FEW_PEOPLE players; once enough people are in, they withdraw (a game in play
    goes on). Marked BOT in the standings; the podium names the best person too."""
    bots, wanted, active = _computers(tournament)
    for entry in active[wanted:]:
        entry.withdrawn = True
        entry.save(update_fields=["withdrawn"])
    missing = wanted - len(active)
    for entry in [entry for entry in bots if entry.withdrawn][:max(0, missing)]:
        entry.withdrawn = False
        entry.save(update_fields=["withdrawn"])
        missing -= 1
    entered = {entry.player_id for entry in bots}
    for level in computers.levels():
        if missing <= 0:
            break
        computer = computers.bot_for(level)
        if computer.pk not in entered:
            Entry.objects.create(tournament=tournament, player=computer)
            missing -= 1


def computers_to_change(tournament):
    """Whether fill_with_computers would change anything now (read without a lock)."""
    bots, wanted, active = _computers(tournament)
    return len(active) != wanted and (len(active) > wanted or len(bots) > len(active)
                                      or len(bots) < len(computers.levels()))


def _computers(tournament):
    """(the computers' entries, how many should play, those playing)."""
    entries = list(tournament.entries.all())
    bots = [entry for entry in entries if computers.is_bot(entry.player_id)]
    people = sum(1 for entry in entries if not entry.withdrawn and entry not in bots)
    wanted = max(0, FEW_PEOPLE - people) if people else 0
    return bots, wanted, [entry for entry in bots if not entry.withdrawn]


# What a game's start needs of a player, read with the entry: the profile says whether the
# clock of a computer stands (play.services.clock_start), without a query per game.
PLAYER = ("player", "player__profile")


def arena_wave(tournament, waves=None):
    """Pair the arena's free players (tournaments.formats.arena) and start their games, or
    add the wave to `waves` for start_wave (plan)."""
    if settings.TOURNAMENT_COMPUTERS:
        fill_with_computers(tournament)
    pairs = _with_players(tournament, wave_pairs(tournament))
    if not pairs:
        return []
    if waves is not None:
        waves.append((tournament, pairs))
        return []
    return [_start(tournament, first, second) for first, second in pairs]


def _with_players(tournament, pairs):
    """The pairs of entry ids as pairs of entries, with their players and profiles."""
    entries = tournament.entries.select_related(*PLAYER).in_bulk(
        {pk for pair in pairs for pk in pair})
    return [(entries[first], entries[second]) for first, second in pairs]


def wave_pairs(tournament):
    """The next wave: [(first entry id, second entry id)], from the entries and pairings as
    read now (the sides balanced, never the same opponent twice in a row but for two)."""
    entries, last, balance = {}, {}, {}
    for pk, points, joined_at, player_id, opponent, side_balance, paused, withdrawn in (
            tournament.entries.values_list("pk", "points", "joined_at", "player_id",
                                           "last_opponent_id", "side_balance", "paused",
                                           "withdrawn")):
        if not (paused or withdrawn):
            entries[pk] = (points, joined_at, player_id)
            if opponent is not None:
                last[pk] = opponent
            balance[pk] = side_balance
    # The games in play only (an index of tournament, ended_at); each entry keeps its last
    # opponent and side balance (_paired).
    busy = {pk for pair in tournament.pairings.filter(ended_at__isnull=True).values_list(
        "first_id", "second_id") for pk in pair}
    free = [pk for pk in entries if pk not in busy]
    free.sort(key=lambda pk: (-entries[pk][0], entries[pk][1], pk))
    pairs = []
    for a, b in pair_wave(free, last):
        if computers.is_bot(entries[a][2]) and computers.is_bot(entries[b][2]):
            continue  # computers are there for the people: they wait for the next wave
        pairs.append(arena_sides(a, b, balance))
    return pairs


def _swiss_round(tournament, now):
    tournament.round += 1
    tournament.round_started_at = now
    tournament.save(update_fields=["round", "round_started_at"])
    entries = {entry.pk: entry for entry in tournament.entries.select_related("player")}
    # Counted games only (with days per round, some of the last round may be in play); the
    # opponents and sides below take every pairing.
    games = [(p.first_id, p.second_id, p.result)
             for p in tournament.pairings.filter(void=False, ended_at__isnull=False)]
    had_bye = set(tournament.byes.values_list("entry_id", flat=True))
    byes = list(tournament.byes.filter(played=False).values_list("entry_id", flat=True))
    players = {pk: SwissPlayer(pk, score=entry.points, had_bye=pk in had_bye)
               for pk, entry in entries.items()}
    for pairing in tournament.pairings.order_by("round", "pk"):
        for me, side, other in ((pairing.first_id, FIRST, pairing.second_id),
                                (pairing.second_id, SECOND, pairing.first_id)):
            players[me].opponents.add(other)
            players[me].sides.append(side)
    standing = [row.player for row in swiss_standings(list(entries), games, byes)]
    # A computer that played a bye is withdrawn: never paired by the rounds themselves.
    field = [players[pk] for pk in standing if not entries[pk].withdrawn]
    if len(field) < 2:
        return _finish(tournament, now)
    paired = pair_round(field)
    for first, second in paired.pairs:
        _start(tournament, entries[first], entries[second], tournament.round)
    if paired.bye is None:
        return
    if settings.TOURNAMENT_COMPUTERS and not computers.is_bot(entries[paired.bye].player_id):
        # The odd player out plays a computer instead of sitting out (still their one bye).
        Bye.objects.create(tournament=tournament, round=tournament.round, entry_id=paired.bye,
                           played=True)
        person, computer = entries[paired.bye], bye_computer(tournament)
        # The person alternates: second after a game as first, else first.
        if players[person.pk].sides[-1:] == [FIRST]:
            _start(tournament, computer, person, tournament.round)
        else:
            _start(tournament, person, computer, tournament.round)
        return
    Bye.objects.create(tournament=tournament, round=tournament.round, entry_id=paired.bye)
    results.recount(tournament, paired.bye)


def bye_computer(tournament):
    """The entry of the computer that plays Swiss byes: the lowest level (a bye is worth a
    point; the computer makes the player earn it), withdrawn so the rounds never pair it."""
    computer = computers.bot_for(computers.levels()[0])
    entry, _ = Entry.objects.get_or_create(tournament=tournament, player=computer,
                                           defaults={"withdrawn": True})
    return entry


def _start_round_robin(tournament, now):
    entries = list(tournament.entries.filter(withdrawn=False).select_related("player")
                   .order_by("joined_at", "pk"))
    # All games at once: the correspondence habit of AbstractPlay and Little Golem.
    for number, pairs in enumerate(berger_rounds(entries, double=tournament.double), 1):
        for first, second in pairs:
            _start(tournament, first, second, number)
