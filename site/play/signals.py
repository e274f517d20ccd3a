"""What other apps hear of games: once a change has committed, and (game_ending) inside the
transaction that ends one.

`game_changed` (sender=Game, game=<Game>, event="started" | "action" | "taken_back" |
"ended") is sent by play.broadcast.announce after the commit, on the thread that made the
change: receivers (the dashboard's `turn` events, the opt-in mail) queue what they send
through live.outbox, so it leaves from the event loop like the game's own news. Keep
receivers cheap: they run on the live path of every move.
"""
from django.dispatch import Signal

game_changed = Signal()

# `game_ending` (sender=Game, game=<Game>, now=<datetime>) is sent by play.endings.end_game
# INSIDE the ending's transaction, with the game row locked and saved: what depends on a
# result exactly once (a tournament's standings) changes its own rows there, so it commits
# with the end or not at all. A receiver that raises rolls the ending back.
game_ending = Signal()

# `house_rules` (sender=Game, game=<Game>) is asked before a takeback is proposed and before a
# player writes in the players' chat: a receiver answers with {"takeback": reason, "chat":
# reason} for what the game does not allow (a tournament game allows neither, as lichess's
# arenas), or None. Asked on those rare actions only, never on a move.
house_rules = Signal()

# `plays_elsewhere` (sender=None, user_id=<id>) is asked (on a reader thread) when a logged-in
# game socket opens: a receiver answers with why this account does not play on the game page
# (a bot account plays through the API: api.receivers), or None. The socket still watches.
plays_elsewhere = Signal()


def why_plays_elsewhere(user_id):
    for _, answer in plays_elsewhere.send(sender=None, user_id=user_id):
        if answer:
            return answer
    return None


# `change_answered` (sender=GameConsumer) is sent on the event loop once a change sent on a
# game socket has been made and answered (the ops app counts them): cheap receivers only.
change_answered = Signal(use_caching=True)

# `computer_rematch` (sender=Game, game=<Game>, player=<User>) is asked, in the game's
# transaction, before `player` starts a rematch against a computer (which accepts at once): a
# receiver answers why not (the bots app's cap on computer games), or None.
computer_rematch = Signal()

# `occasion` (sender=Game, game=<Game>) is asked when a game's page or snapshot is drawn: a
# receiver answers with {"name": ..., "url": ...} for the event the game is played in (a
# tournament's), or None. Never asked on a move.
occasion = Signal()

# `berserk` (sender=Game, game=<Game>, player=<index>) is asked, inside the locked transaction,
# when a player asks to halve their own clock (play.berserk): a receiver whose event offers it
# records the choice and answers True, or raises play.services.PlayError with the reason.
berserk = Signal()


def house_rules_of(game):
    """What is off in `game`: {"takeback": reason, "chat": reason}, each only where it is off
    (the page hides the button or the players' chat box and says why)."""
    rules = {}
    for _, answer in house_rules.send(sender=type(game), game=game):
        for what, reason in (answer or {}).items():
            rules.setdefault(what, reason)
    return rules


def occasion_of(game):
    """The event `game` is played in, {"name", "url"}, or None."""
    for _, answer in occasion.send(sender=type(game), game=game):
        if answer:
            return answer
    return None


def not_allowed(game, what):
    """Why `what` ("takeback", "chat") is off in `game`, or None where it is allowed."""
    for _, answer in house_rules.send(sender=type(game), game=game):
        if answer and what in answer:
            return answer[what]
    return None
