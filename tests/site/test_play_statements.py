"""The move path's hand-built statements (play.statements) give what the ORM gives."""
import pytest
from django.db import transaction

from play import lapses, services, statements
from play.models import Action, Game
from ratings.display import prefetch
from tests.site.played import start


def field_values(game):
    return {field.attname: getattr(game, field.attname) for field in Game._meta.concrete_fields}


def test_a_game_read_by_hand_is_the_orm_s(alice, bob):
    game = start(alice, bob, "tripen", {"size": 5})
    services.play(game.pk, alice, 0, "a1/0")
    by_orm = Game.objects.with_players().get(pk=game.pk)
    for lock in (False, True):
        with transaction.atomic():
            by_hand = statements.game(game.pk, lock=lock)
        assert field_values(by_hand) == field_values(by_orm)
        assert [p.username for p in by_hand.players()] == ["alice", "bob"]
        assert by_hand.state().actions == by_orm.state().actions


@pytest.mark.parametrize("game_id", [10**6, 2**70, -1, "x", None])
def test_a_game_that_cannot_exist_is_not_found(db, game_id):
    with pytest.raises(Game.DoesNotExist):
        statements.game(game_id)


def test_a_move_is_stored_as_save_would_store_it(alice, bob):
    game = start(alice, bob)
    services.play(game.pk, alice, 0, "c3")
    stored = Game.objects.get(pk=game.pk)
    assert stored.ply_count == 1 and stored.both_moved is False
    # The derived fields as Game.save() keeps them: expires_at follows the new position.
    assert stored.updated_at > game.updated_at
    assert stored.expires_at == lapses.lapses_at(stored)
    action = Action.objects.get(game=game, ply=0)
    assert (action.action, action.player) == ("c3", 0)


def test_each_game_gets_its_own_copy_of_a_cached_player(alice, bob):
    game = start(alice, bob)
    first = statements.game(game.pk)
    prefetch(first.players())  # caches ratings on these user objects
    second = statements.game(game.pk)
    assert second.player0 is not first.player0
    assert "_prefetched_objects_cache" not in second.player0.__dict__


def test_a_players_copy_is_what_copy_copy_gives_with_a_state_of_its_own(alice):
    import copy

    from django.contrib.auth import get_user_model

    (user,) = statements.read_users([alice.pk])
    clone, reference = statements.fresh_copy(user), copy.copy(user)
    reference.__dict__.pop("_django_version")  # pickling's mark, which copy.copy leaves
    assert type(clone) is get_user_model()
    assert ({k: v for k, v in clone.__dict__.items() if k != "_state"}
            == {k: v for k, v in reference.__dict__.items() if k != "_state"})
    assert clone._state.__dict__ == reference._state.__dict__
    assert clone._state is not user._state and clone.pk == alice.pk
    # The related objects read with the row (its profile, if any) shared, their cache not.
    assert clone._state.fields_cache == user._state.fields_cache
    clone._state.fields_cache["rating"] = object()
    assert "rating" not in user._state.fields_cache


def test_players_read_by_hand_are_the_orm_s(alice, bob):
    """The players' rows as select_related("profile") gives them, a user without a profile
    included (its `.profile` raises as the ORM's does)."""
    from django.contrib.auth import get_user_model

    from accounts.models import Profile

    Profile.objects.get_or_create(user=alice, defaults={"is_bot": True})
    Profile.objects.filter(user=bob).delete()
    by_orm = {user.pk: user for user in
              get_user_model().objects.select_related("profile").filter(pk__in=[alice.pk, bob.pk])}
    by_hand = {user.pk: user for user in statements.read_users([alice.pk, bob.pk])}
    assert by_hand.keys() == by_orm.keys()
    for pk, user in by_orm.items():
        fields = get_user_model()._meta.concrete_fields
        assert ({f.attname: getattr(by_hand[pk], f.attname) for f in fields}
                == {f.attname: getattr(user, f.attname) for f in fields})
    profile = by_hand[alice.pk].profile   # no query: read with the user
    assert profile.pk == by_orm[alice.pk].profile.pk and profile.is_bot
    assert profile.user is by_hand[alice.pk]
    with pytest.raises(get_user_model().profile.RelatedObjectDoesNotExist):
        by_hand[bob.pk].profile
    assert [u.pk for u in statements.read_users([alice.pk])] == [alice.pk]


def test_a_started_game_is_the_row_stored(alice, bob):
    """start_game stores its row through live.sql.create: the instance it returns has what the
    database made (its key, the generated option columns) and what was written."""
    game = start(alice, bob, "tripen", {"size": 5})
    assert field_values(game) == field_values(Game.objects.get(pk=game.pk))
    assert game.option_size == 5 and not game._state.adding


def test_games_read_together_are_the_orm_s(alice, bob):
    games = [start(alice, bob), start(bob, alice, "tripen", {"size": 5})]
    services.play(games[0].pk, alice, 0, "c3")
    by_orm = {game.pk: game for game in Game.objects.with_players().filter(
        pk__in=[game.pk for game in games])}
    by_hand = statements.games([game.pk for game in games] + [10**6])
    assert sorted(game.pk for game in by_hand) == sorted(by_orm)
    for game in by_hand:
        assert field_values(game) == field_values(by_orm[game.pk])
        assert [p.username for p in game.players()] == [p.username
                                                        for p in by_orm[game.pk].players()]
