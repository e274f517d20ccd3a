"""A rematch offered to the computer starts at once, through play's services like any rematch
(issue 21, item 15: the offer waited for ever, "waiting for an answer")."""
import pytest

from bots import accounts
from play import services
from play.models import Game
from play.rematch import offer as offer_rematch
from tests.site.played import start

pytestmark = pytest.mark.django_db


def test_a_rematch_offered_to_the_computer_starts_at_once(alice, sent):
    computer = accounts.bot_for(1)
    game = start(alice, computer, "hadron", {"size": 5})
    services.resign(game.pk, alice, 0)
    with sent() as news:
        assert offer_rematch(game.pk, alice) == []
    rematch = Game.objects.get(rematch_of=game)
    assert rematch.players() == (computer, alice) and rematch.options == {"size": 5}
    game.refresh_from_db()
    assert game.rematch_offer is None
    assert [m["type"] for group, m in news if group == f"game-{game.pk}"
            and m["type"].startswith("rematch")] == ["rematch_started"]
    # The computer moves first in the rematch, and did (its job ran in line, JOBS_MODE=eager).
    assert services.load(rematch.pk).ply_count == 1
    assert offer_rematch(game.pk, alice)[0]["id"] == rematch.pk


def test_a_rematch_against_the_computer_counts_toward_the_cap(alice, settings):
    """Issue 21, item 1: every door that starts a computer game checks the cap, a rematch too."""
    settings.BOT_GAMES_PER_PLAYER = 1
    computer = accounts.bot_for(1)
    finished = start(alice, computer, "hadron", {"size": 5})
    services.resign(finished.pk, alice, 0)
    start(alice, accounts.bot_for(2), "hadron", {"size": 5})  # the one game the cap allows
    with pytest.raises(services.PlayError) as refused:
        offer_rematch(finished.pk, alice)
    assert refused.value.code == "not_allowed" and "against the computer" in str(refused.value)
    assert not Game.objects.filter(rematch_of=finished).exists()


def test_between_people_an_offer_still_waits_for_the_answer(alice, bob):
    game = start(alice, bob, "hadron", {"size": 5})
    services.resign(game.pk, alice, 0)
    assert offer_rematch(game.pk, alice) == []
    game.refresh_from_db()
    assert game.rematch_offer == 0 and not Game.objects.filter(rematch_of=game).exists()
