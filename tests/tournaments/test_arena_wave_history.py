"""An arena's wave from what each entry keeps (its last opponent, its side balance) and the games
in play, checked against the wave worked out the old way, from every pairing the event has had,
over an event with a history: several waves, games ended and in play, a player paused."""
import importlib
import random

import pytest
from django.apps import apps as django_apps

from bots import accounts as computers
from tournaments import services
from tournaments.formats.arena import pair_wave, sides
from tournaments.models import Entry, Pairing

from tests.tournaments.test_tournament_site import event, finish

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def quick_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def wave_from_every_pairing(tournament):
    """wave_pairs as it was before entries kept their last opponent and side balance."""
    entries = {pk: (points, joined_at, player_id) for pk, points, joined_at, player_id, paused,
               withdrawn in tournament.entries.values_list(
                   "pk", "points", "joined_at", "player_id", "paused", "withdrawn")
               if not (paused or withdrawn)}
    busy, last, balance = set(), {}, {}
    for first, second, ended_at in tournament.pairings.order_by("created_at", "pk").values_list(
            "first_id", "second_id", "ended_at"):
        if ended_at is None:
            busy.update((first, second))
        last[first], last[second] = second, first
        balance[first] = balance.get(first, 0) + 1
        balance[second] = balance.get(second, 0) - 1
    free = [pk for pk in entries if pk not in busy]
    free.sort(key=lambda pk: (-entries[pk][0], entries[pk][1], pk))
    return [sides(a, b, balance) for a, b in pair_wave(free, last)
            if not (computers.is_bot(entries[a][2]) and computers.is_bot(entries[b][2]))]


def kept(tournament):
    return {pk: (opponent, balance) for pk, opponent, balance in
            tournament.entries.values_list("pk", "last_opponent_id", "side_balance")}


def test_a_wave_from_the_kept_history_is_the_wave_from_every_pairing(django_user_model):
    people = [django_user_model.objects.create_user(f"waver{n}") for n in range(11)]
    tournament = event(people[0])
    for person in people:
        services.join(tournament.pk, person)
    rng = random.Random(23)
    waves = 0
    for round_ in range(8):
        assert services.wave_pairs(tournament) == wave_from_every_pairing(tournament)
        services.tick()
        waves += 1
        in_play = list(Pairing.objects.filter(tournament=tournament, ended_at__isnull=True))
        # Some games end (wins, draws as aborts), some go on into the next waves.
        for pairing in in_play:
            if rng.random() < 0.7:
                finish(pairing.game, rng.choice([0, 1, 1, None]))
        if round_ == 3:
            services.pause(tournament.pk, people[2])
        if round_ == 5:
            services.pause(tournament.pk, people[2], paused=False)
    assert Pairing.objects.filter(tournament=tournament, ended_at__isnull=True).exists()
    assert Pairing.objects.filter(tournament=tournament, ended_at__isnull=False).count() > 10
    assert services.wave_pairs(tournament) == wave_from_every_pairing(tournament)

    # The data migration works out the same from the pairings alone.
    before = kept(tournament)
    assert any(balance for _, balance in before.values())
    Entry.objects.filter(tournament=tournament).update(last_opponent=None, side_balance=0)
    importlib.import_module("tournaments.migrations.0008_entry_last_opponent").from_pairings(
        django_apps, None)
    assert kept(tournament) == before
