"""Tournaments through Django's test client and the services the periodic tick runs: the
create form and its refusals, joining and its refusals, and an arena, a Swiss event and a
round robin played to the end through play's services, with the standings checked against a
recomputation from the stored games."""
import re
from datetime import timedelta

import pytest
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

import games
from play import services as play
from play.clock import TimeControl
from play.models import Game
from tournaments import results, services
from tournaments.formats.arena import ArenaGame, points as arena_points
from tournaments.models import Bye, Entry, Pairing, Tournament
from tournaments.standings import table

pytestmark = pytest.mark.django_db
JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture(autouse=True)
def quick_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def people(django_user_model):
    return [django_user_model.objects.create_user(f"player{n}") for n in range(8)]


def form(**extra):
    data = {"name": "Hadron hour", "kind": "arena", "game": "hadron", "starts_in": "5",
            "duration": "30", "rounds": "", "max_players": "", "time_kind": "realtime",
            "minutes": "3", "increment": "2", "days": "", "rated": "rated"}
    for name in games.names():
        engine = games.get(name)
        for option in engine.option_choices():
            data[f"{name}_{option}"] = str(engine.defaults[option])
    data.update(extra)
    return data


def event(creator, kind="arena", starts_in=0, **extra):
    settings = {"name": f"test {kind}", "kind": kind, "game": "hadron",
                "options": {"size": 5}, "rated": True,
                "starts_at": timezone.now() + timedelta(minutes=starts_in)}
    if kind == "arena":
        settings.update(time_control=TimeControl("realtime", 3, 2), minutes=30)
    else:
        settings.update(time_control=TimeControl("correspondence", days=3), rounds=3)
    settings.update(extra)
    return services.create(creator, **settings)


@pytest.fixture(params=["in one call", "as the server does"])
def tick(request):
    """The periodic tick, either way: `services.tick` (scripts, commands) or the server's two
    halves (`plan` on a thread, then the arena waves' games a slice at a time)."""
    if request.param == "in one call":
        return services.tick

    def server_tick():
        for tournament, pairs in services.slices(services.plan()):
            services.start_wave(tournament, pairs)
    return server_tick


def finish(game, winner):
    """End `game` as a person would: the loser resigns (winner None: abort, no result)."""
    game.refresh_from_db()
    if winner is None:
        return play.abort(game.pk, game.player0, game.ply_count)
    loser = game.player1 if winner == 0 else game.player0
    play.resign(game.pk, loser, game.ply_count)


def recomputed_points(tournament):
    """Each entry's points worked out again from the stored games alone."""
    totals = {}
    for entry in tournament.entries.all():
        scores = []
        for pairing in Pairing.objects.filter(tournament=tournament).order_by("ended_at", "pk"):
            game = Game.objects.get(pk=pairing.game_id)
            if game.status != Game.FINISHED or entry.pk not in (pairing.first_id,
                                                                pairing.second_id):
                continue
            mine = 0 if pairing.first_id == entry.pk else 1
            scores.append(0.5 if game.winner is None else float(game.winner == mine))
        if tournament.kind == Tournament.ARENA:
            totals[entry.player.username] = arena_points([ArenaGame(s) for s in scores])
        else:
            totals[entry.player.username] = sum(scores) + Bye.objects.filter(
                entry=entry, played=False).count()
    return totals


def shown_points(tournament):
    return {row["username"]: row["points"] for row in table(tournament)}


# -- the create form ------------------------------------------------------------------------

def test_a_player_creates_an_arena_with_the_form(client, people):
    client.force_login(people[0])
    response = client.post("/tournaments/new/", form())
    tournament = Tournament.objects.get()
    assert response.status_code == 302 and response.url == f"/tournaments/{tournament.pk}/"
    assert (tournament.kind, tournament.game, tournament.options) == ("arena", "hadron",
                                                                      {"size": 5})
    assert tournament.ends_at - tournament.starts_at == timedelta(minutes=30)
    page = client.get("/tournaments/").content.decode()
    assert "Hadron hour" in page


@pytest.mark.parametrize("bad, field", [
    ({"duration": "10"}, "duration"), ({"duration": "121"}, "duration"),
    ({"duration": ""}, "duration"),
    ({"kind": "swiss", "rounds": "2"}, "rounds"), ({"kind": "swiss", "rounds": "40"}, "rounds"),
    ({"minutes": "0"}, "minutes"), ({"increment": "61"}, "increment"),
    ({"time_kind": "correspondence", "days": "3"}, "time_kind"),
    ({"kind": "roundrobin", "max_players": "11", "time_kind": "correspondence", "days": "3"},
     "max_players"),
    ({"max_players": "1"}, "max_players"), ({"game": "chess"}, "game"),
    ({"hadron_size": "99"}, "hadron_size"), ({"starts_in": "-5"}, "starts_in"),
    ({"name": ""}, "name"), ({"kind": "knockout"}, "kind"),
])
def test_a_create_form_out_of_range_is_answered_with_a_form_error(client, people, bad, field):
    client.force_login(people[0])
    response = client.post("/tournaments/new/", form(**bad))
    assert response.status_code == 400
    assert field in response.context["form"].errors
    assert not Tournament.objects.exists()


def test_visitors_cannot_create_and_only_operators_mark_official(client, people):
    response = client.post("/tournaments/new/", form())
    assert response.status_code == 302 and "/login/" in response.url
    client.force_login(people[0])
    client.post("/tournaments/new/", form(official="on"))
    assert not Tournament.objects.get().official


# -- joining and its refusals ------------------------------------------------------------------

def test_joining_twice_a_full_or_a_finished_event_is_refused_and_changes_nothing(client,
                                                                                  people):
    tournament = event(people[0], starts_in=10, max_players=2)
    for person in people[:2]:
        client.force_login(person)
        assert client.post(f"/tournaments/{tournament.pk}/join/", **JSON).json()["ok"]
    answer = client.post(f"/tournaments/{tournament.pk}/join/", **JSON)
    assert answer.status_code == 409 and answer.json()["code"] == "already_joined"
    client.force_login(people[2])
    assert client.post(f"/tournaments/{tournament.pk}/join/", **JSON).json()["code"] == "full"
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.FINISHED)
    assert client.post(f"/tournaments/{tournament.pk}/join/", **JSON).json()["code"] == "over"
    assert tournament.entries.count() == 2


def test_a_player_in_another_arena_game_cannot_join_an_arena(people):
    first = event(people[0])
    for person in people[:2]:
        services.join(first.pk, person)
    services.tick()
    second = event(people[0])
    with pytest.raises(services.TournamentError) as refused:
        services.join(second.pk, people[0])
    assert refused.value.code == "in_game" and not second.entries.exists()


def test_only_the_creator_or_an_operator_cancels_and_only_before_the_start(client, people):
    tournament = event(people[0], starts_in=10)
    client.force_login(people[1])
    assert client.post(f"/tournaments/{tournament.pk}/cancel/", **JSON).json()["code"] == \
        "forbidden"
    people[1].is_staff = True
    people[1].save()
    assert client.post(f"/tournaments/{tournament.pk}/cancel/", **JSON).json()["ok"]
    running = event(people[0])
    services.tick()
    client.force_login(people[0])
    assert client.post(f"/tournaments/{running.pk}/cancel/", **JSON).json()["code"] == "started"


def test_the_event_page_shows_settings_standings_and_the_players_game(client, people):
    tournament = event(people[0])
    for person in people[:2]:
        services.join(tournament.pk, person)
    services.tick()
    client.force_login(people[0])
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    game = Pairing.objects.get().game
    assert "Standings" in page and "player1" in page and game.get_absolute_url() in page
    data = client.get(f"/tournaments/{tournament.pk}/standings.json").json()
    assert data["my_game"] == game.get_absolute_url() and len(data["rows"]) == 2


@pytest.mark.parametrize("kind, words", [
    ("arena", ["Arena of 30 minutes", "3+2: 3 minutes each, plus 2 seconds", "A win 2 points",
               "2 wins in a row", "at least 7 actions", "within 5 minutes after it",
               "tournament performance rating"]),
    ("swiss", ["Swiss, 3 rounds", "3 days per move", "a bye 1", "round before has ended",
               "Buchholz, then Sonneborn-Berger, then the direct encounter",
               "With fewer than 2 players at the start the event is cancelled"]),
    ("roundrobin", ["Round robin: everyone plays everyone twice", "Sonneborn-Berger, then the "
                    "direct encounter", "With fewer than 3 players then it is cancelled"]),
])
def test_the_event_page_states_its_rules_in_words(client, people, kind, words):
    extra = {"double": True} if kind == "roundrobin" else {}
    tournament = event(people[0], kind=kind, starts_in=10, **extra)
    page = client.get(tournament.get_absolute_url()).content.decode()
    rules = page[page.index('id="rules"'):]
    for text in words:
        assert text in rules, text


# -- the formats played to the end ----------------------------------------------------------------

def test_an_arena_pairs_free_players_counts_each_end_once_and_finishes(tick, people):
    tournament = event(people[0])
    for person in people[:5]:
        services.join(tournament.pk, person)
    tick()
    first_wave = list(Pairing.objects.filter(tournament=tournament))
    assert len(first_wave) == 2  # five free: two games, one waits
    services.pause(tournament.pk, people[4])  # the one left over pauses: no pairing
    for number, pairing in enumerate(first_wave):
        finish(pairing.game, number % 2)
    # Counting again (a repeated signal) changes nothing: the pairing has its end.
    results.game_ended(Game, first_wave[0].game, timezone.now())
    tick()
    second_wave = Pairing.objects.filter(tournament=tournament).exclude(
        pk__in=[p.pk for p in first_wave])
    assert len(second_wave) == 2
    last = {frozenset((p.first_id, p.second_id)) for p in first_wave}
    assert not last & {frozenset((p.first_id, p.second_id)) for p in second_wave}
    busy = [entry for p in second_wave for entry in (p.first_id, p.second_id)]
    assert len(busy) == len(set(busy))  # nobody in two games at once
    services.withdraw(tournament.pk, people[0])  # mid-game: the game goes on and counts
    for pairing in second_wave:
        finish(pairing.game, 0)
    Tournament.objects.filter(pk=tournament.pk).update(
        ends_at=timezone.now() - timedelta(seconds=1))
    tick()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.FINISHED
    assert shown_points(tournament) == recomputed_points(tournament)
    assert sum(shown_points(tournament).values()) == 4 * 2


def test_a_player_in_a_game_asking_to_be_paired_is_refused_and_withdrawing_mid_game_stops_pairing(
        tick, people):
    tournament = event(people[0])
    for person in people[:4]:
        services.join(tournament.pk, person)
    tick()
    first_wave = list(Pairing.objects.filter(tournament=tournament))
    leaver = Entry.objects.get(tournament=tournament, player=people[0])
    for request in (lambda: services.pause(tournament.pk, people[0], paused=False),
                    lambda: services.join(tournament.pk, people[0])):
        with pytest.raises(services.TournamentError) as refused:
            request()
        assert refused.value.code in ("unchanged", "already_joined")
    services.pause(tournament.pk, people[1])
    with pytest.raises(services.TournamentError, match="paused already"):
        services.pause(tournament.pk, people[1])
    services.pause(tournament.pk, people[1], paused=False)
    tick()
    assert Pairing.objects.filter(tournament=tournament).count() == 2  # nobody paired twice
    services.withdraw(tournament.pk, people[0])  # mid-game: the game goes on
    theirs = Pairing.objects.get(Q(first=leaver) | Q(second=leaver), tournament=tournament)
    theirs.game.refresh_from_db()
    assert theirs.game.is_active
    for number, pairing in enumerate(first_wave):
        finish(pairing.game, number % 2)
    tick()
    later = Pairing.objects.filter(tournament=tournament).exclude(
        pk__in=[p.pk for p in first_wave])
    assert later.count() == 1  # three free people: one game, and never the one who left
    assert leaver.pk not in (later[0].first_id, later[0].second_id)
    assert shown_points(tournament) == recomputed_points(tournament)  # their game counted


def test_a_planned_wave_starts_only_the_games_whose_players_are_still_free(people):
    """The server plans a wave without a lock and starts it a slice at a time: whoever another
    process paired, or who paused, since the plan is skipped; after the end nothing starts."""
    tournament = event(people[0])
    for person in people[:6]:
        services.join(tournament.pk, person)
    [(planned_for, pairs)] = services.plan()
    assert planned_for == tournament and len(pairs) == 3
    services.tick()  # another process pairs everyone first
    assert services.start_wave(tournament, pairs) == []
    assert Pairing.objects.filter(tournament=tournament).count() == 3
    for pairing in Pairing.objects.filter(tournament=tournament):
        finish(pairing.game, 0)
    [(_, pairs)] = services.plan()
    gone = pairs[0][1]
    services.pause(tournament.pk, gone.player)
    started = [game for _, part in services.slices([(tournament, pairs)])
               for game in services.start_wave(tournament, part)]
    assert len(started) == 2
    in_play = Pairing.objects.filter(tournament=tournament, ended_at__isnull=True)
    busy = [entry for p in in_play for entry in (p.first_id, p.second_id)]
    assert len(busy) == len(set(busy)) == 4 and gone.pk not in busy
    for pairing in in_play:
        finish(pairing.game, 1)
    [(_, pairs)] = services.plan()
    Tournament.objects.filter(pk=tournament.pk).update(
        ends_at=timezone.now() - timedelta(seconds=1))
    assert services.start_wave(tournament, pairs) == []


def test_an_aborted_arena_game_counts_for_nobody(tick, people):
    tournament = event(people[0])
    for person in people[:2]:
        services.join(tournament.pk, person)
    tick()
    pairing = Pairing.objects.get()
    finish(pairing.game, None)
    pairing.refresh_from_db()
    assert pairing.void and pairing.ended_at is not None
    assert set(shown_points(tournament).values()) == {0}


def test_a_swiss_event_runs_its_rounds_with_one_bye_each_and_correct_standings(people):
    tournament = event(people[0], kind="swiss", rounds=3)
    for person in people[:5]:
        services.join(tournament.pk, person)
    for round_number in (1, 2, 3):
        services.tick()
        tournament.refresh_from_db()
        assert tournament.round == round_number
        pairings = Pairing.objects.filter(tournament=tournament, round=round_number)
        assert len(pairings) == 2
        assert Bye.objects.filter(tournament=tournament, round=round_number).count() == 1
        for number, pairing in enumerate(pairings):
            finish(pairing.game, (number + round_number) % 2)
    services.tick()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.FINISHED
    met = [frozenset((p.first_id, p.second_id)) for p in tournament.pairings.all()]
    assert len(met) == len(set(met))
    byes = list(tournament.byes.values_list("entry_id", flat=True))
    assert len(byes) == len(set(byes)) == 3
    assert shown_points(tournament) == recomputed_points(tournament)
    rows = table(tournament)
    assert [row["points"] for row in rows] == sorted((row["points"] for row in rows),
                                                     reverse=True)
    # Each entry keeps its final place, as the standings had it at the end.
    places = dict(Entry.objects.filter(tournament=tournament).values_list("pk", "place"))
    assert places == {row["entry"]: row["rank"] for row in rows}


def test_a_profile_lists_the_players_events_with_place_and_points(client, people):
    finished = event(people[0], kind="swiss", rounds=3, name="Finished Swiss")
    for person in people[:4]:
        services.join(finished.pk, person)
    for _ in range(3):
        services.tick()
        for pairing in Pairing.objects.filter(tournament=finished, ended_at__isnull=True):
            finish(pairing.game, 0)
    services.tick()
    upcoming = event(people[0], starts_in=60, name="Later arena")
    services.join(upcoming.pk, people[1])
    cancelled = event(people[0], starts_in=60, name="Called off")
    services.join(cancelled.pk, people[1])
    services.cancel(cancelled.pk, people[0])
    entry = Entry.objects.get(tournament=finished, player=people[1])
    assert entry.place is not None
    page = client.get(f"/u/{people[1].username}/").content.decode()
    section = page[page.index('id="profile-events"'):]
    assert section.index("Later arena") < section.index("Finished Swiss")
    row = section[section.index("Finished Swiss"):section.index("</tr>",
                                                            section.index("Finished Swiss"))]
    assert f"<td>{entry.place}</td>" in row
    assert f"<td>{entry.points:g}</td>" in row
    assert "Called off" not in page
    # Someone who never played: an empty list saying so.
    page = client.get(f"/u/{people[7].username}/").content.decode()
    assert "No tournaments yet" in page


def test_a_correspondence_swiss_with_days_per_round_starts_rounds_on_time(client, people):
    tournament = event(people[0], kind="swiss", rounds=3, round_days=2)
    for person in people[:4]:
        services.join(tournament.pk, person)
    start = timezone.now()
    services.tick(start)
    first_round = list(Pairing.objects.filter(tournament=tournament, round=1))
    finish(first_round[0].game, 0)  # the other game of round 1 goes on
    services.tick(start + timedelta(days=1))
    tournament.refresh_from_db()
    assert tournament.round == 1  # not yet: a game is in play, and the interval is not over
    services.tick(start + timedelta(days=2, seconds=1))
    tournament.refresh_from_db()
    assert tournament.round == 2
    assert Pairing.objects.filter(tournament=tournament, round=2).count() == 2
    assert Pairing.objects.get(pk=first_round[1].pk).in_play  # round 1's game goes on
    met = [frozenset((p.first_id, p.second_id)) for p in tournament.pairings.all()]
    assert len(met) == len(set(met))
    page = client.get(tournament.get_absolute_url()).content.decode()
    assert "A round starts 2 days after the one before" in page


def test_days_per_round_out_of_range_is_a_form_error_and_ignored_elsewhere(client, people):
    client.force_login(people[0])
    swiss = {"kind": "swiss", "rounds": "5", "time_kind": "correspondence", "minutes": "",
             "increment": "", "days": "3"}
    response = client.post("/tournaments/new/", form(**swiss, round_days="31"))
    assert response.status_code == 400 and "round_days" in response.context["form"].errors
    assert not Tournament.objects.exists()
    client.post("/tournaments/new/", form(**swiss, round_days="2"))
    client.post("/tournaments/new/", form(name="Real time", kind="swiss", rounds="5",
                                          round_days="2"))
    assert dict(Tournament.objects.values_list("name", "round_days")) == {
        "Hadron hour": 2, "Real time": None}


def test_a_late_swiss_player_joins_before_round_two_with_zero_points(people):
    tournament = event(people[0], kind="swiss", rounds=3)
    for person in people[:4]:
        services.join(tournament.pk, person)
    services.tick()
    services.join(tournament.pk, people[4])
    assert Entry.objects.get(tournament=tournament, player=people[4]).points == 0
    for pairing in Pairing.objects.filter(tournament=tournament):
        finish(pairing.game, 0)
    services.tick()
    with pytest.raises(services.TournamentError) as refused:
        services.join(tournament.pk, people[5])
    assert refused.value.code == "started"
    assert Pairing.objects.filter(tournament=tournament, round=2).count() == 2


def test_a_round_robin_starts_every_game_at_once_and_ends_with_the_last(people):
    tournament = event(people[0], kind="roundrobin", double=True)
    for person in people[:4]:
        services.join(tournament.pk, person)
    services.tick()
    pairings = list(Pairing.objects.filter(tournament=tournament))
    assert len(pairings) == 12
    assert len({(p.first_id, p.second_id) for p in pairings}) == 12
    for number, pairing in enumerate(pairings):
        finish(pairing.game, number % 2)
    services.tick()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.FINISHED
    assert shown_points(tournament) == recomputed_points(tournament)
    assert sum(shown_points(tournament).values()) == 12


@pytest.fixture
def notices(django_capture_on_commit_callbacks):
    """`with notices() as told:` runs the block and its commit hooks and collects the
    `tournament_cancelled` notices sent to players' groups: {group: message}."""
    import json
    from contextlib import contextmanager

    from live.outbox import Outbox

    @contextmanager
    def capture():
        told = {}
        with Outbox() as box, django_capture_on_commit_callbacks(execute=True):
            yield told
        for group, sent in box.events:
            message = json.loads(sent["text"]) if "text" in sent else sent
            if message.get("type") == "tournament_cancelled":
                told[group] = message
    return capture


@pytest.mark.parametrize("kind, joined, needed", [("roundrobin", 2, 3), ("swiss", 1, 2),
                                                  ("swiss", 0, 2)])
def test_an_event_with_too_few_players_at_its_start_is_cancelled_and_they_are_told(
        client, settings, people, notices, kind, joined, needed):
    settings.TOURNAMENT_COMPUTERS = True  # no computer makes up the numbers either
    tournament = event(people[0], kind=kind, starts_in=1)
    for person in people[:joined]:
        services.join(tournament.pk, person)
    services.join(tournament.pk, people[5])
    services.withdraw(tournament.pk, people[5])  # gone before the start: not counted, not told
    with notices() as told:
        services.tick(now=timezone.now() + timedelta(minutes=2))
    tournament.refresh_from_db()
    assert tournament.status == Tournament.CANCELLED
    assert not tournament.pairings.exists() and not tournament.byes.exists()
    assert [row["points"] for row in table(tournament)] == [0] * (joined + 1)
    because = f"fewer than {needed} players had joined at its start"
    assert tournament.cancelled_because == because
    assert sorted(told) == sorted(f"user-{person.pk}" for person in people[:joined])
    for message in told.values():
        assert message["url"] == tournament.get_absolute_url()
        assert message["message"] == f"{tournament.name} is cancelled: {because}."
    page = client.get(tournament.get_absolute_url()).content.decode()
    assert f"Cancelled: {because}." in page
    services.tick(now=timezone.now() + timedelta(minutes=3))  # stays cancelled
    tournament.refresh_from_db()
    assert tournament.status == Tournament.CANCELLED and not tournament.pairings.exists()


def test_a_swiss_event_of_two_starts_and_plays(people):
    tournament = event(people[0], kind="swiss")
    for person in people[:2]:
        services.join(tournament.pk, person)
    services.tick()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.RUNNING and tournament.pairings.count() == 1


def test_the_players_who_joined_are_told_when_the_creator_cancels(people, notices):
    tournament = event(people[0], kind="swiss", starts_in=60)
    services.join(tournament.pk, people[1])
    with notices() as told:
        services.cancel(tournament.pk, people[0])
    assert list(told) == [f"user-{people[1].pk}"]
    assert "cancelled by its creator" in told[f"user-{people[1].pk}"]["message"]


def test_tournament_games_have_no_takebacks_and_no_players_chat(people):
    from live.sockets import Refusal
    from play import takeback
    from talk.services import add_line

    tournament = event(people[0])
    for person in people[:2]:
        services.join(tournament.pk, person)
    services.tick()
    game = Pairing.objects.get().game
    engine = games.get(game.game)
    state = engine.replay(game.options, [])
    play.play(game.pk, game.player0, 0, state.legal_actions()[0])
    with pytest.raises(play.PlayError) as refused:
        takeback.propose(game.pk, game.player0, 1)
    assert refused.value.code == "not_allowed" and "tournament" in str(refused.value)
    with pytest.raises(Refusal) as refused:
        add_line(game.pk, game.player1, "good luck")
    assert refused.value.code == "chat_off"
    add_line(game.pk, people[5], "a spectator may talk")


def test_a_tournament_games_page_names_its_event_and_offers_no_takeback_or_players_chat(
        client, people):
    tournament = event(people[0], name="Hadron hour")
    for person in people[:2]:
        services.join(tournament.pk, person)
    services.tick()
    game = Pairing.objects.get().game
    client.force_login(game.player0)
    page = client.get(game.get_absolute_url()).content.decode()
    assert f'Played in <a href="{tournament.get_absolute_url()}">Hadron hour</a>' in page
    assert 'id="chat-off"' in page and 'id="chat-form"' not in page
    snapshot = client.get(reverse("play:snapshot", args=[game.pk])).json()
    assert snapshot["event"] == {"name": "Hadron hour", "url": tournament.get_absolute_url(),
                                 "berserk_offered": True, "berserk": [False, False]}
    assert set(snapshot["house_rules"]) == {"takeback", "chat"}
    # A spectator still talks with the other spectators.
    client.force_login(people[5])
    page = client.get(game.get_absolute_url()).content.decode()
    assert 'id="chat-form"' in page and 'id="chat-off"' not in page
    # A game outside any event: nothing of the kind.
    outside = play.start_game(game="hadron", options={"size": 5}, players=people[2:4],
                              time_control=TimeControl("untimed"))
    client.force_login(people[2])
    page = client.get(outside.get_absolute_url()).content.decode()
    assert 'id="game-event"' not in page and 'id="chat-form"' in page
    snapshot = client.get(reverse("play:snapshot", args=[outside.pk])).json()
    assert snapshot["event"] is None and snapshot["house_rules"] == {}


def test_computers_fill_an_arena_of_few_people_and_leave_when_enough_come(settings, tick, people,
                                                                          client):
    from bots import accounts as computers

    settings.TOURNAMENT_COMPUTERS = True
    tournament = event(people[0])
    for person in people[:2]:
        services.join(tournament.pk, person)
    tick()
    bots = Entry.objects.filter(tournament=tournament, player__profile__is_bot=True)
    assert bots.count() == 2 and not bots.filter(withdrawn=True).exists()
    for pairing in Pairing.objects.filter(tournament=tournament):
        assert not (computers.is_bot(pairing.first.player_id)
                    and computers.is_bot(pairing.second.player_id))
    rows = table(tournament)
    assert sorted(row["bot"] for row in rows) == [False, False, True, True]
    finish(Pairing.objects.get(tournament=tournament).game, 0)
    tick()  # the people just met: each gets a computer now
    second_wave = Pairing.objects.filter(tournament=tournament, ended_at__isnull=True)
    assert len(second_wave) == 2
    for pairing in second_wave:  # the computers win
        assert computers.is_bot(pairing.first.player_id) != computers.is_bot(
            pairing.second.player_id)
        finish(pairing.game, 0 if computers.is_bot(pairing.first.player_id) else 1)
    for person in people[2:4]:
        services.join(tournament.pk, person)
    tick()
    assert bots.filter(withdrawn=False).count() == 0  # four people: the computers step out
    for pairing in Pairing.objects.filter(tournament=tournament, ended_at__isnull=True):
        finish(pairing.game, 0)
    Tournament.objects.filter(pk=tournament.pk).update(
        ends_at=timezone.now() - timedelta(seconds=1))
    tick()
    # A computer on the podium takes no prize: the best person is named too.
    rows = table(Tournament.objects.get(pk=tournament.pk))
    assert any(row["bot"] for row in rows[:3])
    best = next(row for row in rows if not row["bot"])
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert f"Best person: {best['username']}" in page


def test_with_the_setting_a_swiss_bye_is_played_against_a_computer(settings, people):
    from bots import accounts as computers

    settings.TOURNAMENT_COMPUTERS = True
    tournament = event(people[0], kind="swiss", rounds=3)
    for person in people[:5]:
        services.join(tournament.pk, person)
    for round_number in (1, 2, 3):
        services.tick()
        pairings = list(Pairing.objects.filter(tournament=tournament, round=round_number))
        against = [p for p in pairings if computers.is_bot(p.first.player_id)
                   or computers.is_bot(p.second.player_id)]
        assert len(pairings) == 3 and len(against) == 1  # two games and the bye's
        bye = Bye.objects.get(tournament=tournament, round=round_number)
        assert bye.played and bye.entry_id in (against[0].first_id, against[0].second_id)
        for number, pairing in enumerate(pairings):
            finish(pairing.game, (number + round_number) % 2)
    services.tick()
    tournament.refresh_from_db()
    assert tournament.status == Tournament.FINISHED
    byes = list(tournament.byes.values_list("entry_id", flat=True))
    assert len(byes) == len(set(byes)) == 3  # still one bye per player
    computer = Entry.objects.get(tournament=tournament, player__profile__is_bot=True)
    assert computer.withdrawn  # only ever paired for byes
    assert shown_points(tournament) == recomputed_points(tournament)
    assert [row["bot"] for row in table(tournament)].count(True) == 1


def test_without_the_setting_no_computer_enters(settings, people):
    settings.TOURNAMENT_COMPUTERS = False
    tournament = event(people[0])
    services.join(tournament.pk, people[0])
    services.tick()
    assert tournament.entries.count() == 1


def test_a_first_move_not_made_is_a_forfeit_and_pauses_the_absent_arena_player(people):
    tournament = event(people[0])
    for person in people[:2]:
        services.join(tournament.pk, person)
    services.tick()
    pairing = Pairing.objects.get()
    play.expire(pairing.game_id, timezone.now() + timedelta(minutes=2, seconds=50))
    game = Game.objects.get(pk=pairing.game_id)
    assert (game.status, game.reason) == (Game.ABORTED, "no_start")
    absent = Entry.objects.get(pk=pairing.first_id)  # the first player never moved
    present = Entry.objects.get(pk=pairing.second_id)
    assert (absent.points, absent.paused) == (0, True)
    assert (present.points, present.paused) == (2, False)
    services.tick()
    assert Pairing.objects.count() == 1  # the absent player is not paired again


def test_the_archive_filters_an_events_games(client, people):
    tournament = event(people[0])
    for person in people[:4]:
        services.join(tournament.pk, person)
    services.tick()
    pairings = list(Pairing.objects.all())
    for pairing in pairings:
        finish(pairing.game, 0)
    outside = play.start_game(game="hadron", options={"size": 5}, players=people[4:6],
                              time_control=TimeControl("untimed"))
    play.resign(outside.pk, people[4], 0)
    page = client.get(f"/tournaments/{tournament.pk}/").content.decode()
    assert f"/archive/?event={tournament.pk}" in page
    response = client.get("/archive/", {"event": tournament.pk})
    listed = re.compile(r'<li class="archive-row" data-game="(\d+)"')
    shown = {int(pk) for pk in listed.findall(response.content.decode())}
    assert shown == {pairing.game_id for pairing in pairings}
    assert len(listed.findall(client.get("/archive/").content.decode())) == 3
    # Each row of an event's game names the event and links to it; the other game's does not.
    page = client.get("/archive/").content.decode()
    assert page.count(f'class="tag event-tag" href="{tournament.get_absolute_url()}"') == 2
    bad = client.get("/archive/", {"event": "999999"})
    assert bad.context["rows"] is None and "event" in bad.context["form"].errors
