"""Conditional moves: in a correspondence game the player who waits leaves lines, "if they play
X, I play Y; then if they play Z, I play W", and the server plays them (AbstractPlay's and
Little Golem's conditional moves), so a forced sequence plays itself while its owner sleeps.

* A line is a list of whole turns, the opponent's and the owner's in turn, starting with the
  opponent's and ending with the owner's reply; a turn is a list of actions (Colorful's two
  stones, Copolymer's claims). A line may also come as its actions one after the other (the
  page's board editor): the engine cuts it into turns. The lines one player sends replace their tree, kept as one row
  (Conditional): branches {"if": turn, "play": turn, "then": branches}. Lines that share a
  beginning share branches; two different replies to the same turn are refused.
* Every line is played on the engine when saved, from the position the owner saw: an illegal
  action, a turn that does not end where it should, or a line going on past the end of the
  game is refused with the reason, and nothing is stored.
* Played in the transaction that stores the opponent's action that ends their turn
  (services.do_play calls follow while the game's row is locked), each action of the reply
  through the same step as a person's move (services.do_play), and broadcast as any action.
  The tree then advances to the branch's "then" (none left: it is gone). An opponent's turn
  off every branch discards the tree; a takeback discards it too. The owner is told either
  way, on their own sockets only.
* The archive's record shows the actions as played, with the tag ConditionalMoves naming the
  action numbers a condition played (Action.by_condition); the game page's move list (live
  and replayed) marks them, from the snapshot's "by_condition" and the action messages'.
* Private: only the owner's snapshot and sockets carry it; the opponent, spectators and
  computers never see it (the archive and exports read the actions, not this table).

Size: at most MAX_LINES lines of at most MAX_EXCHANGES exchanges (their turn and the reply)
each; a turn is at most MAX_TURN_ACTIONS actions. See docs/protocol.md, "Conditional moves".
"""

import games
from play import broadcast
from play.models import Action, Conditional, Game
from play.services import PlayError, do_play, game_over, in_locked_game, require_player, stale

MAX_LINES = 16
MAX_EXCHANGES = 8
MAX_TURN_ACTIONS = 8


def player_to_move(game, state):
    """The player index whose turn it is in `state`, a position reached from the game's (a
    swap in between changes who plays which side)."""
    return state.to_move ^ int(getattr(state, "swapped", game.swapped))


def message_of(conditional):
    return {"type": "conditions", "ply": conditional.ply, "lines": conditional.lines()}


# -- checking lines on the engine ------------------------------------------------------------------

def checked_tree(game, state, owner, lines):
    """The tree of `lines` played from `state` (the opponent of `owner` to move), every action
    canonical; PlayError("illegal" / "too_large") saying which line and turn is wrong."""
    if not isinstance(lines, list) or not 0 < len(lines) <= MAX_LINES:
        raise PlayError("too_large", f"send 1 to {MAX_LINES} lines")
    tree = []
    for number, line in enumerate(lines, 1):
        if isinstance(line, list) and line and all(isinstance(action, str) for action in line):
            line = _turns_of(game, state, line, number)
        if (not isinstance(line, list) or not line or len(line) % 2
                or len(line) > 2 * MAX_EXCHANGES):
            raise PlayError("too_large" if isinstance(line, list) and len(line) > 2 * MAX_EXCHANGES
                            else "bad_message",
                            f"line {number}: 1 to {MAX_EXCHANGES} pairs of turns (their turn, "
                            "then your reply)")
        _add_line(game, tree, state, owner, line, number)
    return tree


def _turns_of(game, state, actions, number):
    """A line given as its actions one after the other (as the page's board editor builds
    it), cut into whole turns on the engine: a turn ends when the other player is to move."""
    if len(actions) > 2 * MAX_EXCHANGES * MAX_TURN_ACTIONS:
        raise PlayError("too_large", f"line {number}: too many actions")
    turns, turn = [], []
    for action in actions:
        if not 0 < len(action) <= 32:
            raise PlayError("bad_message", f"line {number}: an action is text of 1 to 32 "
                            "characters")
        if state.is_over:
            raise PlayError("illegal", f"line {number}: the game is over before {action}")
        mover = player_to_move(game, state)
        try:
            state = state.play(action)
        except games.IllegalAction as reason:
            raise PlayError("illegal", f"line {number}: {action}: {reason}")
        turn.append(state.actions[-1])
        if state.is_over or player_to_move(game, state) != mover:
            turns.append(turn)
            turn = []
    if turn:
        raise PlayError("illegal", f"line {number}: the last turn is not over after "
                        f"{' '.join(turn)}")
    if len(turns) % 2:
        raise PlayError("illegal", f"line {number}: it ends with their turn: add your reply")
    return turns


def _add_line(game, branches, state, owner, line, number):
    for index in range(0, len(line), 2):
        theirs, state = _turn(game, state, 1 - owner, line[index], number, index)
        mine, state = _turn(game, state, owner, line[index + 1], number, index + 1)
        branch = next((b for b in branches if b["if"] == theirs), None)
        if branch is None:
            branch = {"if": theirs, "play": mine, "then": []}
            branches.append(branch)
        elif branch["play"] != mine:
            raise PlayError("illegal", f"line {number}: two different replies to "
                            f"{' '.join(theirs)} ({' '.join(branch['play'])} and "
                            f"{' '.join(mine)})")
        if state.is_over and index + 2 < len(line):
            raise PlayError("illegal", f"line {number}: the game is over after turn "
                            f"{index + 2}, the line goes on")
        branches = branch["then"]


def _turn(game, state, player, turn, number, index):
    """(canonical actions, state after) of one whole turn of `player`."""
    whose = "your" if index % 2 else "their"
    where = f"line {number}, turn {index + 1} ({whose})"
    if not isinstance(turn, list) or not 0 < len(turn) <= MAX_TURN_ACTIONS:
        raise PlayError("bad_message", f"{where}: a turn is a list of 1 to {MAX_TURN_ACTIONS} "
                        "actions")
    if state.is_over:
        raise PlayError("illegal", f"{where}: the game is already over")
    played = []
    for action in turn:
        if not isinstance(action, str) or not 0 < len(action) <= 32:
            raise PlayError("bad_message", f"{where}: an action is text of 1 to 32 characters")
        if state.is_over or player_to_move(game, state) != player:
            raise PlayError("illegal", f"{where}: the turn is over before {action}")
        try:
            state = state.play(action)
        except games.IllegalAction as reason:
            raise PlayError("illegal", f"{where}: {action}: {reason}")
        played.append(state.actions[-1])
    if not state.is_over and player_to_move(game, state) == player:
        raise PlayError("illegal", f"{where}: the turn is not over after "
                        f"{' '.join(played)}: {state.prompt}")
    return played, state


# -- the owner's messages --------------------------------------------------------------------------

def save(game_id, user, ply, lines, now=None):
    return in_locked_game(game_id, user, do_save_conditions, ply, lines, now=now)


def clear(game_id, user, now=None):
    return in_locked_game(game_id, user, do_clear_conditions, now=now)


def do_save_conditions(game, me, now, ply, lines):
    require_player(me)
    if not game.is_active:
        raise game_over(game)
    if not game.time_control.is_correspondence:
        raise PlayError("not_correspondence", "conditional moves are for correspondence games: "
                        f"in a {game.time_control.kind} game, play each move yourself")
    if ply != game.ply_count:
        raise stale(game)
    state = game.state()
    if player_to_move(game, state) == me:
        raise PlayError("your_turn", "it is your turn: play your move, then leave lines for "
                        "the opponent's answers")
    tree = checked_tree(game, state, me, lines)
    conditional, _ = Conditional.objects.update_or_create(
        game=game, player=me, defaults={"ply": ply, "takebacks": game.takebacks, "tree": tree})
    game.mark_waiting("conditions_waiting", True)
    broadcast.to_seat(game, me, message_of(conditional))
    return []


def do_clear_conditions(game, me, now):
    require_player(me)
    if game.conditionals.filter(player=me).delete()[0]:
        game.mark_waiting("conditions_waiting", game.conditionals.exists())
        broadcast.to_seat(game, me, {"type": "conditions_cleared", "reason": "cleared"})
    return []


# -- after the opponent's turn ---------------------------------------------------------------------

def follow(game, now):
    """The opponent's turn has just been stored (in this transaction, the game's row locked)
    and the turn passed to the owner: play the owner's reply if the turn is on their tree, else
    discard the tree. Returns whether a reply was played (it announced itself)."""
    state = game.state()
    owner = player_to_move(game, state)
    conditional = game.conditionals.filter(player=owner).first()
    if conditional is None:
        return False
    conditional.delete()
    theirs = list(state.actions[conditional.ply:])
    branch = next((b for b in conditional.tree if b["if"] == theirs), None)
    reason = None
    if conditional.takebacks != game.takebacks:
        reason = "a takeback changed the position the lines were for"
    elif branch is None:
        reason = f"{' '.join(theirs)} is on none of your lines"
    else:
        reason = _why_not(game, owner, state, branch["play"])
    if reason is not None:
        _discarded(game, owner, reason, theirs)
        game.mark_waiting("conditions_waiting", game.conditionals.exists())
        return False
    then = branch.get("then") or []
    # The reply's own store writes the flag with the move (services.MOVE_FIELDS).
    game.conditions_waiting = bool(then) or game.conditionals.exists()
    first = game.ply_count
    for action in branch["play"]:
        do_play(game, owner, now, game.ply_count, action, by_condition=True)
        if not game.is_active:
            break
    # The record marks what a condition played (archive.exports).
    Action.objects.filter(game=game, ply__gte=first, player=owner).update(by_condition=True)
    if then and game.is_active:
        advanced = Conditional.objects.create(game=game, player=owner, ply=game.ply_count,
                                              takebacks=game.takebacks, tree=then)
        broadcast.to_seat(game, owner, {**message_of(advanced), "played": branch["play"],
                                        "after": theirs})
    else:
        game.mark_waiting("conditions_waiting", game.conditionals.exists())
        broadcast.to_seat(game, owner, {"type": "conditions_cleared", "reason": "played",
                                        "played": branch["play"], "after": theirs})
    return True


def _why_not(game, owner, state, turn):
    """Why the reply cannot be played now, or None. Checked on the engine first, as a premove
    is: the lines were checked from this very position, but a refusal inside do_play would
    roll back the opponent's action with it."""
    for action in turn:
        if state.is_over or player_to_move(game, state) != owner:
            return f"your turn ended before {action}"
        try:
            state = state.play(action)
        except games.IllegalAction as reason:
            return f"{action}: {reason}"
    return None


def drop_all(game, why):
    """Discard every tree of the game, their owners told `why` (a takeback)."""
    for conditional in list(game.conditionals.all()):
        conditional.delete()
        _discarded(game, conditional.player, why, None)
    game.conditions_waiting = False
    Game.objects.filter(pk=game.pk).update(conditions_waiting=False)


def _discarded(game, owner, reason, theirs):
    broadcast.to_seat(game, owner, {"type": "conditions_cleared", "reason": "discarded",
                                    "message": f"your conditional moves were discarded: {reason}",
                                    "after": theirs})
