"""After the end: either player may offer a rematch; when the other accepts, a new game starts
with the same game, options and time control, and the other player moving first. At most one
rematch follows a game: asking again once it exists just points to it. A computer accepts at
once: nobody would ever answer for it, and the offer waited for ever."""
from play import broadcast
from play.seats import opponent
from play.signals import computer_rematch
from play.services import PlayError, in_locked_game, require_player, start_game


def offer(game_id, user):
    """Offer a rematch, or accept the opponent's standing offer."""
    return in_locked_game(game_id, user, do_offer_rematch)


def decline(game_id, user):
    """Decline the opponent's offer, or withdraw one's own."""
    return in_locked_game(game_id, user, do_decline_rematch)


def do_offer_rematch(game, me, now):
    require_player(me)
    if game.is_active:
        raise PlayError("not_allowed", "a rematch can be offered once the game is over")
    follow_up = game.follow_up()
    if follow_up is not None:
        return [started(follow_up)]
    against_computer = game.is_computer(opponent(me))
    if game.rematch_offer is None and not against_computer:
        do_set_rematch_offer(game, me)
        return []
    if game.rematch_offer == me:
        return [{"type": "rematch", "offered_by": me}]  # already standing: just a reminder
    if against_computer:
        # A rematch is one more game on the workers everyone shares: the bots app answers
        # with the same cap as its form.
        for _, refusal in computer_rematch.send(sender=type(game), game=game,
                                                player=game.players()[me]):
            if refusal:
                raise PlayError("not_allowed", refusal)
    follow_up = start_game(game=game.game, options=game.options,
                           players=(game.player1, game.player0),
                           time_control=game.time_control, rematch_of=game,
                           rated=game.rated)
    game.rematch_offer = None
    game.save(update_fields=["rematch_offer", "updated_at"])
    broadcast.to_game(game, started(follow_up))
    return []


def do_decline_rematch(game, me, now):
    require_player(me)
    if game.rematch_offer is None:
        raise PlayError("not_allowed", "there is no rematch offer to decline")
    do_set_rematch_offer(game, None)
    return []


def do_set_rematch_offer(game, offered_by):
    game.rematch_offer = offered_by
    game.save(update_fields=["rematch_offer", "updated_at"])
    broadcast.to_game(game, {"type": "rematch", "offered_by": offered_by})


def started(follow_up):
    return {"type": "rematch_started", "url": follow_up.get_absolute_url(), "id": follow_up.pk}
