"""The computer players (games.bots, games.mcts) and the playout path they stand on
(State.clone, apply_action, person_to_move).  Small boards and level 1 keep this quick."""

import json
import random

import pytest

import games
from games import bots, mcts
from games.bots import (CLOCK_TOP_LEVEL, LEVELS, TOP_EXPLORATION, TOP_LEVEL, TREE_FREE_SHARE,
                        GreedyPlayer, MctsPlayer, RandomPlayer, choose, level_description,
                        level_name, player, winning_chances)

# Small boards: every game played to the end in a few hundred milliseconds at level 1.
SMALL = {"copolymer": {"size": 4}, "hadron": {"size": 5}, "tripen": {"size": 5},
         "colorful": {"size": 3}}
NO_CAP = 60.0   # a time limit that never cuts a level-1 search, so results are repeatable


def random_states(name, seed, **options):
    """The states of a seeded random game, from the start to the end, via play()."""
    rng, state = random.Random(seed), games.get(name).new(**options)
    states = [state]
    while not state.is_over:
        state = state.play(rng.choice(state.legal_actions()))
        states.append(state)
    return states


def wins_at_once(state):
    """The mover's immediate wins, found with play() (not with the code under test)."""
    seat = state.to_move ^ state.swapped
    out = []
    for action in state.legal_actions():
        child = state.play(action)
        if child.is_over and child.winner is not None and child.winner ^ child.swapped == seat:
            out.append(action)
    return out


# -- the playout path ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(SMALL))
@pytest.mark.parametrize("options", ["small", "default"])
def test_apply_action_in_place_reaches_what_play_returns(name, options):
    opts = SMALL[name] if options == "small" else {}
    for seed in (1, 2):
        states = random_states(name, seed, **opts)
        fast = states[0].clone()
        for before, after in zip(states, states[1:]):
            fast.apply_action(after.actions[-1])
            assert fast.ply == after.ply and fast.to_move == after.to_move
            assert fast.legal_actions() == after.legal_actions()
        assert json.dumps(fast.to_dict()) == json.dumps(states[-1].to_dict())
        # The clone was changed in place; the states of the game were not.
        assert states[0].ply == 0 and not states[0].is_over


def test_person_to_move_follows_tripens_swap():
    state = games.get("tripen").new(size=5).play("c3/0")
    assert (state.to_move, state.person_to_move) == (1, 1)
    swapped = state.play("swap")
    # Blue moves again, and Blue is now the player who placed the first token.
    assert (swapped.to_move, swapped.person_to_move) == (1, 0)


def test_rewards_are_per_seat_after_a_swap():
    rng = random.Random(5)
    state = games.get("tripen").new(size=5).play("c3/0").play("swap")
    while not state.is_over:
        state = state.play(rng.choice(state.legal_actions()))
    # The seat that swapped (seat 1) holds Red.
    expected = (0.0, 1.0) if state.winner == 0 else (1.0, 0.0)
    assert mcts.rewards(state) == expected


# -- legality, repeatability ---------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(SMALL))
def test_level_one_plays_only_legal_actions_to_the_end(name):
    for seed in (1, 2):
        bots = [MctsPlayer(1, seed=seed, time_limit=NO_CAP), MctsPlayer(1, seed=seed + 100,
                                                                       time_limit=NO_CAP)]
        state = games.get(name).new(**SMALL[name])
        while not state.is_over:
            action = bots[state.person_to_move].choose(state)
            assert action in state.legal_actions()
            state = state.play(action)   # play() checks it again
        assert state.is_over


def test_the_default_board_too():
    state = games.get("copolymer").new()
    bot = MctsPlayer(1, seed=3, time_limit=NO_CAP)
    while not state.is_over:
        state = state.play(bot.choose(state))
    assert state.winner in (0, 1)


@pytest.mark.parametrize("name", sorted(SMALL))
def test_a_seed_repeats_a_whole_game(name):
    def record(seed):
        bots = [player("mcts1", seed), player("greedy", seed + 1)]
        for bot in bots:
            bot.time_limit = NO_CAP
        state = games.get(name).new(**SMALL[name])
        while not state.is_over:
            state = state.play(bots[state.person_to_move].choose(state))
        return state.actions

    assert record(4) == record(4)
    assert len({record(seed) for seed in (4, 5, 6)}) > 1   # and the seed matters


def test_choose_is_repeatable_and_seeded():
    state = games.get("hadron").new()
    assert len({choose(state, 1, seed=9, time_limit=NO_CAP) for _ in range(3)}) == 1
    assert len({choose(state, 1, seed=s, time_limit=NO_CAP) for s in range(8)}) > 1


def test_levels_rise_and_are_named_for_the_site():
    assert sorted(LEVELS) == list(range(1, TOP_LEVEL + 1))
    for game in games.names():
        budgets = [LEVELS[level].budget(game) for level in sorted(LEVELS)]
        assert budgets == sorted(budgets) and len(set(budgets)) == len(budgets)
    for level in LEVELS:
        simulations, cap = LEVELS[level][:2]
        assert (simulations, cap) == (LEVELS[level].simulations, LEVELS[level].cap)
        assert level_name(level) and level_description(level).endswith(".")
    assert len({level_name(level) for level in LEVELS}) == len(LEVELS)
    # The strongest level on a clock stays under 2 s a move; Master alone thinks longer, and
    # only where no clock runs.
    assert LEVELS[CLOCK_TOP_LEVEL].cap <= 2.0 < LEVELS[TOP_LEVEL].cap <= 5.0
    assert [lv for lv in LEVELS if LEVELS[lv].untimed_only] == [TOP_LEVEL] == [5]


@pytest.mark.parametrize("name", sorted(SMALL))
def test_every_level_plays_legal_actions_to_the_end_on_every_board(name):
    """Each level with its own switches (the solver; no level keeps its tree) and time cap,
    on every board the game offers, against the random player: a budget of a few simulations
    a move keeps the test cheap on the large boards."""
    from games.arena import boards
    game = games.get(name)
    for options in boards(game, "all"):
        for level in LEVELS:
            bot = MctsPlayer(level, seed=level, simulations=4)
            assert bot.time_limit == LEVELS[level].cap
            assert (bot.solver, bot.reuse) == (LEVELS[level].solver, LEVELS[level].reuse)
            other, state = RandomPlayer(level), game.new(**options)
            seat = level % 2
            while not state.is_over:
                mover = bot if state.person_to_move == seat else other
                action = mover.choose(state)
                assert action in state.legal_actions()
                if mover is bot:
                    assert bot.last.playouts <= 4
                state = state.play(action)


def test_the_top_levels_search_colorful_with_budgets_of_their_own(monkeypatch):
    """Strong's 10,000 simulations left about half its cap unused on Colorful hexhex 5, so
    there it runs 15,000 within the same cap, and Master three times as many (docs/
    measurements.md, issue 28); every other game, and every level below, keeps the level's
    budget."""
    asked = []
    real = bots.search

    def counted(state, playouts, *args, **kwargs):
        asked.append((state.game.name, playouts))
        return real(state, 3, *args, **kwargs)

    monkeypatch.setattr(bots, "search", counted)
    for name in games.names():
        for level in (3, 4, 5):
            MctsPlayer(level, seed=1, endgame=0).choose(games.get(name).new())
    assert asked == [(name, budget) for name in games.names()
                     for budget in ((1000, 15_000, 45_000) if name == "colorful"
                                    else (1000, 10_000, 30_000))]
    # A budget given for every game still wins over the level's per game.
    assert MctsPlayer(4, simulations=40).budget("colorful") == 40


def test_the_time_cap_cuts_a_search_short():
    """A budget no machine gets through in a twentieth of a CPU second: the cap ends the
    search (counted in CPU time), and the answer is still a legal action."""
    state = games.get("tripen").new()
    result = mcts.search(state, playouts=10 ** 9, rng=random.Random(1), time_limit=0.05)
    assert 0 < result.playouts < 10 ** 9 and result.seconds >= 0.05
    assert result.action in state.legal_actions()
    bot = MctsPlayer(TOP_LEVEL, seed=1, time_limit=0.05)
    assert bot.choose(state) in state.legal_actions()
    assert bot.last.playouts < LEVELS[TOP_LEVEL].simulations
    assert bot.last.seconds >= bot.search_limit   # the limit less the tree's freeing


def test_a_search_on_a_real_clock_stops_at_its_time_whatever_its_cpu():
    """A player on a real clock counts the clock it is given (the site: wall-clock seconds),
    not the CPU it got: here a clock that runs a second per reading stops the search at the
    third simulation's check, though hardly any CPU was spent."""
    readings = iter(range(10 ** 6))
    state = games.get("hadron").new()
    bot = MctsPlayer(TOP_LEVEL, seed=1, time_limit=2.5, clock=lambda: next(readings))
    assert bot.choose(state) in state.legal_actions()
    assert bot.last.playouts == 3


def test_a_level_leaves_the_last_share_of_its_time_for_freeing_its_tree():
    """The time limit bounds the whole action, and the searched tree is freed after the last
    simulation (a fifth of a second after Master's on Hadron 11x11): so the simulations stop
    TREE_FREE_SHARE of the limit early, here on a clock that runs 0.01 s a reading."""
    readings = iter(range(10 ** 6))
    state = games.get("copolymer").new()
    bot = MctsPlayer(TOP_LEVEL, seed=1, time_limit=1.0, clock=lambda: next(readings) / 100)
    assert bot.search_limit == pytest.approx(1.0 - TREE_FREE_SHARE) and TREE_FREE_SHARE > 0
    assert bot.choose(state) in state.legal_actions()
    assert 1.0 - TREE_FREE_SHARE <= bot.last.seconds < 1.0
    assert bot.last.tree is None   # freed within the action, inside the limit


def test_the_cycle_collector_is_off_while_a_search_runs_and_as_it_was_after():
    """The collector only scanned the growing tree (a quarter of a search's time on Hadron
    11x11): a search holds it off, read here by the search's own clock, and leaves it as it
    found it, on or off; searches in two threads at once leave it on only after both."""
    import gc
    import threading

    seen = []
    readings = iter(range(10 ** 6))

    def clock():
        seen.append(gc.isenabled())
        return next(readings) / 100

    state = games.get("hadron").new(size=7)
    assert gc.isenabled()
    mcts.search(state, playouts=50, rng=random.Random(1), time_limit=1.0, clock=clock)
    assert seen and not any(seen) and gc.isenabled()
    gc.disable()
    try:
        mcts.search(state, playouts=5, rng=random.Random(1))
        assert not gc.isenabled()
    finally:
        gc.enable()
    # Two searches overlapping: the first to end leaves the collector off for the other.
    inside, release, during = threading.Event(), threading.Event(), []

    def waiting_clock():
        inside.set()
        release.wait(5)
        return 0.0

    other = threading.Thread(target=mcts.search, args=(state, 2, random.Random(2)),
                             kwargs={"clock": waiting_clock})
    other.start()
    assert inside.wait(5)
    mcts.search(state, playouts=5, rng=random.Random(1))
    during.append(gc.isenabled())
    release.set()
    other.join(5)
    assert during == [False] and gc.isenabled()


def test_the_old_top_level_searches_with_the_collector_running_as_it_did():
    """The arena's mcts4-old is the top level before this issue: the collector ran."""
    import gc

    seen = []

    def clock():
        seen.append(gc.isenabled())
        return len(seen) / 100

    old = player("mcts4-old", 1)
    assert old.hold_collector is False and player("mcts4", 1).hold_collector is True
    old.clock = clock
    old.choose(games.get("copolymer").new())
    assert seen and all(seen)


def test_a_players_name_says_whether_its_search_holds_the_collector_off():
    """`,collector=1`: the level searching with the collector running, what the pause alone
    is worth in a match; `,collector=0`: the old level holding it off."""
    assert player("mcts4,collector=1", 1).hold_collector is False
    assert player("mcts4-old,collector=0", 1).hold_collector is True
    assert player("mcts4,collector=0", 1).hold_collector is True
    with pytest.raises(ValueError, match="collector=0"):
        player("mcts4,collector=yes", 1)


def test_searches_that_overlap_without_end_let_the_collector_run_now_and_then():
    """A search that starts while others hold the collector off, and it has been off longer
    than the pause's `most` seconds, runs one collection first (unreachable cycles go)."""
    import gc

    now = [0.0]
    pause = mcts._CollectorPause(most=30.0, clock=lambda: now[0])
    runs = []
    gc.callbacks.append(lambda phase, info: runs.append(phase) if phase == "stop" else None)
    try:
        with pause:
            now[0] = 10.0
            with pause:          # 10 s off: nothing
                pass
            assert runs == [] and not gc.isenabled()
            now[0] = 45.0
            with pause:          # 45 s off: one collection, and the count starts again
                assert runs == ["stop"] and not gc.isenabled()
            now[0] = 60.0
            with pause:
                assert runs == ["stop"]
        assert gc.isenabled()
    finally:
        gc.callbacks.pop()


def test_a_settled_search_stops_early_with_the_answer_it_would_give():
    """Near the end of a Hadron game one action soon leads: the search stops once no other
    action can catch up in the budget left, and the whole budget, searched with the same
    seed, answers the same."""
    stopped = 0
    for state in random_states("hadron", 3)[4:-2]:
        if mcts.immediate_wins(state) or len(state.legal_actions()) < 2:
            continue
        result = mcts.search(state, playouts=5000, rng=random.Random(2))
        visits = sorted(result.visits.values(), reverse=True)
        if result.playouts < 5000:
            stopped += 1
            assert visits[0] - (visits[1] if len(visits) > 1 else 0) > 5000 - result.playouts
            whole = mcts.search(state, playouts=5000, rng=random.Random(2), settle=False)
            assert whole.playouts == 5000 and whole.action == result.action
    assert stopped


@pytest.mark.parametrize("name", sorted(SMALL))
def test_games_against_the_bots_end_from_either_seat(name):
    for seed in (1, 2):
        for other in (RandomPlayer(seed), GreedyPlayer(seed)):
            bots = [MctsPlayer(2, seed=seed, time_limit=NO_CAP), other]
            if seed == 2:
                bots.reverse()
            state = games.get(name).new(**SMALL[name])
            while not state.is_over:
                action = bots[state.person_to_move].choose(state)
                assert action in state.legal_actions()
                state = state.play(action)
            assert state.winner in (0, 1)


def test_bad_requests():
    over = random_states("hadron", 1)[-1]
    for bot in (RandomPlayer(1), GreedyPlayer(1), MctsPlayer(1, 1)):
        with pytest.raises(ValueError, match="over"):
            bot.choose(over)
    with pytest.raises(ValueError, match="level"):
        MctsPlayer(TOP_LEVEL + 1)
    with pytest.raises(ValueError, match="no player"):
        player("mcts")
    with pytest.raises(ValueError, match="no player"):
        player("mcts4-newest")
    for spec in ("mcts4,budget=3", "mcts4,sims=many", "mcts4-newest,c=0.2"):
        with pytest.raises(ValueError, match="no player"):
            player(spec)


def test_the_old_top_level_searches_as_before():
    """mcts4-old: the search of commit a6a705f (no solver, no kept tree, the exploration every
    level had), for the arena."""
    old, new = player("mcts4-old", 1), player("mcts4", 1, simulations=50)
    assert (old.solver, old.reuse, old.budget("hadron")) == (False, False, LEVELS[4].simulations)
    assert (new.solver, new.reuse, new.budget("hadron")) == (True, False, 50)
    for game in games.names():
        # The old level's 10,000 simulations in every game, the new level's own per game.
        assert old.budget(game) == 10_000
        assert player("mcts4", 1).budget(game) == LEVELS[4].budget(game)
        assert old.settings(game) == {"exploration": 0.4, "widen": False, "endgame": 0}
        assert new.settings(game) == LEVELS[4].search_settings(game)
    assert LEVELS[3].exploration == 0.4 and not LEVELS[3].widen and LEVELS[3].tuned is None


def test_the_top_levels_search_by_rave_alone_and_widen_where_a_position_has_many_actions():
    """Tripen and Copolymer: no exploration term, children grown in AMAF's order; Colorful
    the same with a little exploration; Hadron keeps the top levels' exploration without
    widening (docs/measurements.md)."""
    for level in (4, 5):
        top = player(f"mcts{level}", 1)
        endgame = LEVELS[level].endgame
        assert top.settings("hadron") == {"exploration": TOP_EXPLORATION, "widen": False,
                                          "endgame": endgame}
        for game in ("tripen", "copolymer"):
            assert top.settings(game) == {"exploration": 0.0, "widen": True, "endgame": endgame}
        assert top.settings("colorful") == {"exploration": 0.05, "widen": True,
                                            "endgame": endgame}
    # A name's own settings hold for every game.
    assert player("mcts4,c=0.3,widen=0,endgame=5", 1).settings("tripen") == {
        "exploration": 0.3, "widen": False, "endgame": 5}
    assert player("mcts3,widen=1", 1).settings("hadron") == {"exploration": 0.4, "widen": True,
                                                             "endgame": 0}


def test_a_players_name_sets_its_own_budget_and_constants():
    """The arena's equal-time matches give each side the budget its search spends in the
    same CPU time, so a player's name may carry its own; it wins over the arena's budget."""
    old = player("mcts4-old,sims=900,c=0.25,rave=300", 1, simulations=50)
    assert (old.solver, old.reuse, old.budget("colorful")) == (False, False, 900)
    assert (old.exploration, old.rave) == (0.25, 300.0)
    new = player("mcts4,c=0.2", 1, simulations=50)
    assert (new.solver, new.reuse, new.budget("colorful"), new.exploration) == (True, False, 50,
                                                                                0.2)


def test_no_level_keeps_its_tree_as_the_site_plays_none():
    """The site plays each computer move as a job of its own (games.bots.choose: a fresh
    player), so a level keeps no tree between its moves, in the arena too: the arena measures
    the level the site plays.  mcts4-keep is the level keeping its tree (its solver and
    settings stay: what the tree alone is worth); mcts4-nokeep, the name of earlier
    measurements, is the level itself."""
    assert not any(spec.reuse for spec in LEVELS.values())
    kept = player("mcts4-keep,c=0.4", 1, simulations=30)
    assert (kept.solver, kept.reuse, kept.budget("tripen"), kept.exploration) == (True, True, 30,
                                                                                  0.4)
    assert player("mcts5-keep", 1).settings("tripen") == LEVELS[5].search_settings("tripen")
    # The level, its -nokeep and mcts4-solver search alike: the same seed plays the same
    # moves, all legal to the end (play() refuses an illegal action), and no tree is kept.
    # No time limit: the endgame search's deadline would make the moves the machine's.
    bots = [player(name, 1, simulations=30) for name in ("mcts4", "mcts4-nokeep", "mcts4-solver")]
    for bot in bots:
        bot.time_limit = NO_CAP
    state = games.get("hadron").new()
    while not state.is_over:
        action, *others = [bot.choose(state) for bot in bots]
        assert others == [action, action]
        assert all(bot.tree is None and bot.last.tree is None for bot in bots)
        state = state.play(action)


# -- tactics -------------------------------------------------------------------------------------

def positions_with_a_choice_of_win(name, seeds, **options):
    """Positions one action before the end of seeded random games whose last mover won, where
    some of the mover's actions win at once and others do not."""
    found = []
    for seed in seeds:
        before = random_states(name, seed, **options)[-2]
        wins = wins_at_once(before)
        if wins and len(wins) < len(before.legal_actions()):
            found.append((before, set(wins)))
    return found


# On a hexhex board Colorful's last stone has its colour set; on a long board the last turn
# is one stone of either colour, and the colour can decide the game.
WIN_BOARDS = {"tripen": SMALL["tripen"], "hadron": SMALL["hadron"],
              "colorful": {"board": "long", "size": 4}}


@pytest.mark.parametrize("name", sorted(WIN_BOARDS))
def test_takes_an_immediate_win(name):
    positions = positions_with_a_choice_of_win(name, range(20), **WIN_BOARDS[name])[:4]
    assert positions, "no position to test"
    for state, wins in positions:
        for seed in (1, 2):
            assert choose(state, 1, seed=seed, time_limit=NO_CAP) in wins
            # Whatever the budget: one simulation could not find it by chance.
            assert mcts.search(state, playouts=1, rng=random.Random(seed)).action in wins
            assert GreedyPlayer(seed).choose(state) in wins


def copolymer_claim_twice_position():
    """Side 4, two cells empty, X to move with 17 cells to O's 18.  E5 (the centre) has six
    O neighbours, so claiming it obliges X to claim again and X takes both cells: 19 to 18.
    A1 (a corner) has only X neighbours: claim it first and the turn passes, O takes E5 and
    wins 19 to 18.  Only a search that knows X moves again after E5 finds the win."""
    game = games.get("copolymer")
    board = game.new(size=4).board
    centre, corner = board.cell("E5"), board.cell("A1")
    claims = {board.names[n]: 1 for n in board.neighbours[centre]}
    claims.update({board.names[n]: 0 for n in board.neighbours[corner]})
    rest = [i for i in range(len(board))
            if board.names[i] not in claims and i not in (centre, corner)]
    counts = [list(claims.values()).count(0), list(claims.values()).count(1)]
    for i in rest:
        side = 0 if counts[0] < 17 else 1
        claims[board.names[i]] = side
        counts[side] += 1
    assert counts == [17, 18]
    return game.state_class.setup(game, {"size": 4}, claims, to_move=0)


def test_search_scores_a_forced_claim_for_the_same_player():
    state = copolymer_claim_twice_position()
    assert sorted(state.legal_actions()) == ["A1", "E5"] and not wins_at_once(state)
    for seed in range(5):
        assert choose(state, 1, seed=seed, time_limit=NO_CAP) == "E5"
    after = state.play("E5")
    assert after.to_move == 0                       # X claims again
    last = after.play(choose(after, 1, seed=1, time_limit=NO_CAP))
    assert last.is_over and last.winner == 0


def test_copolymer_rule_sheet_turns_with_the_bot_to_move():
    """The rule sheet's Figure 2a (side 3): O's forced claims, the bot asked mid-turn."""
    game = games.get("copolymer")
    claims = {c: 0 for c in ("A1", "A3", "B1", "D2", "E5")}
    claims.update({c: 1 for c in ("C1", "C2", "C3", "D4")})
    state = game.state_class.setup(game, {"size": 3}, claims, to_move=1).play("B2")
    assert state.to_move == 1
    for seed in (1, 2, 3):
        action = choose(state, 1, seed=seed, time_limit=NO_CAP)
        assert action in state.legal_actions()


def test_colorful_second_stone_is_the_other_colour():
    state = games.get("colorful").new(size=3)
    bot = MctsPlayer(1, seed=2, time_limit=NO_CAP)
    seconds = 0
    while not state.is_over:
        owed = state.owed
        action = bot.choose(state)
        assert action[0] in owed
        if len(owed) == 1:
            seconds += 1
            assert action[0] != state.actions[-1][0]
        state = state.play(action)
    assert seconds >= 5


def test_tripen_swap_is_searched_and_can_be_played():
    state = games.get("tripen").new(size=5).play("c3/0")
    result = mcts.search(state, playouts=400, rng=random.Random(1))
    assert "swap" in result.visits                  # every child expanded, swap among them
    swapped = state.play("swap")
    for bot in (MctsPlayer(1, 1, NO_CAP), GreedyPlayer(1), RandomPlayer(1)):
        assert bot.choose(swapped) in swapped.legal_actions()


def positions_with_a_losing_choice(name, seeds, **options):
    """Positions near the end of seeded random games where the mover has no immediate win, at least a
    third of the actions let the other player win at once, and some do not."""
    found = []
    for seed in seeds:
        for state in random_states(name, seed, **options)[-8:-1]:   # near the end
            if wins_at_once(state):
                continue
            losing = set()
            for action in state.legal_actions():
                child = state.play(action)
                if child.is_over or (child.person_to_move != state.person_to_move
                                     and wins_at_once(child)):
                    losing.add(action)
            if len(state.legal_actions()) / 3 <= len(losing) < len(state.legal_actions()):
                found.append((state, losing))
    return found


@pytest.mark.parametrize("name", ["hadron", "tripen"])
def test_greedy_avoids_an_immediate_loss(name):
    positions = positions_with_a_losing_choice(name, range(6), **SMALL[name])[:6]
    assert positions, "no position to test"
    for state, losing in positions:
        for seed in range(4):
            assert GreedyPlayer(seed).choose(state) not in losing


# -- the arena -----------------------------------------------------------------------------------

def test_arena_scores_by_seat_and_prints_a_row_per_pairing(capsys):
    from games import arena
    game = games.get("hadron")
    # Level 1 against random from both seats: the score is the first player's, whatever seat.
    scores = [arena.play_game(game, [player("mcts1", s), player("random", s + 1)], first=s % 2)[0]
              for s in range(4)]
    assert all(score in (0.0, 1.0) for score in scores) and sum(scores) >= 3
    low, high = arena.wilson(8, 10)
    assert round(low, 2) == 0.49 and round(high, 2) == 0.94
    assert arena.main(["hadron", "--games", "2", "--random-games", "2", "--top", "1",
                       "--boards", "default"]) == 0
    out = capsys.readouterr().out
    assert "mcts1 vs random" in out and "mcts1 vs greedy" in out and "mcts1 thinking" in out
    assert arena.main(["hadron", "--games", "2", "--pair", "mcts1:mcts1-uct", "--size", "7"]) == 0
    out = capsys.readouterr().out
    assert "size=7 " in out and "mcts1 vs mcts1-uct" in out and "size=5 " not in out


def test_arena_boards_are_each_shapes_smallest_default_and_largest():
    from games import arena
    sizes = {name: [(o.get("board"), o["size"]) for o in arena.boards(games.get(name))]
             for name in games.names()}
    assert sizes == {"hadron": [(None, 5), (None, 11)], "copolymer": [(None, 4), (None, 5), (None, 8)],
                     "tripen": [(None, 5), (None, 7), (None, 13)],
                     "colorful": [("hexhex", 3), ("hexhex", 5), ("hexhex", 7), ("long", 4),
                                  ("long", 6)]}
    assert len(arena.boards(games.get("tripen"), "all")) == 9
    assert arena.boards(games.get("colorful"), "default") == [{"board": "hexhex", "size": 5}]
    assert arena.boards(games.get("colorful"), "all", sizes=[6]) == [
        {"board": "hexhex", "size": 6}, {"board": "long", "size": 6}]


def test_arena_plays_only_the_board_shapes_named(capsys):
    from games import arena
    colorful, hadron = games.get("colorful"), games.get("hadron")
    assert arena.boards(colorful, "all", sizes=[6], shapes=["hexhex"]) == [
        {"board": "hexhex", "size": 6}]
    assert arena.boards(colorful, "ends", shapes=["long"]) == [
        {"board": "long", "size": 4}, {"board": "long", "size": 6}]
    assert arena.boards(colorful, "default", shapes=["long"]) == []
    # A game without shapes plays its boards whatever shape is named for another.
    assert arena.boards(hadron, "ends", shapes=["long"]) == [{"size": 5}, {"size": 11}]
    for argv in (["colorful", "--shape", "hexx"], ["hadron", "--shape", "long"]):
        with pytest.raises(SystemExit):
            arena.main(argv)
        assert "no board shape" in capsys.readouterr().err


def test_arena_plays_every_search_at_the_budget_it_is_given(capsys):
    from games import arena
    record = arena.run_task({"game": "hadron", "options": {"size": 5}, "a": "mcts4",
                             "b": "mcts4-old", "seed": 1, "index": 0, "simulations": 30})
    assert record["score"] in (0.0, 1.0) and record["cut"] == 0
    assert arena.main(["hadron", "--pair", "mcts4:mcts4-old", "--games", "2", "--simulations",
                       "30", "--boards", "default"]) == 0
    out = capsys.readouterr().out
    assert "30 simulations a move" in out and "mcts4 vs mcts4-old" in out


def test_arena_plays_each_player_at_its_own_budget_and_records_both_thinking_times(capsys):
    """Equal time by calibrated budgets: each name carries its budget, and the record holds
    the opponent's CPU per action beside the first-named player's, to show the time was equal."""
    from games import arena
    record = arena.run_task({"game": "hadron", "options": {"size": 5}, "a": "mcts4,sims=40",
                             "b": "mcts4-old,sims=20", "seed": 1, "index": 0})
    assert record["cpu"] and record["cpu_b"] and record["cut"] == 0
    assert arena.main(["hadron", "--pair", "mcts4,sims=40:mcts4-old,sims=20", "--games", "2",
                       "--boards", "default"]) == 0
    out = capsys.readouterr().out
    assert "mcts4,sims=40 vs mcts4-old,sims=20" in out and "its opponent's CPU mean" in out


def test_arena_keeps_results_and_a_rerun_plays_only_what_is_missing(tmp_path, capsys):
    from games import arena
    results = tmp_path / "arena.jsonl"
    argv = ["hadron", "--top", "2", "--games", "2", "--random-games", "3", "--boards", "default",
            "--results", str(results)]
    assert arena.main(argv) == 0
    first = capsys.readouterr().out
    assert "0 games recorded, 7 to play" in first   # mcts2-mcts1 2, random 3, greedy 2
    lines = results.read_text().splitlines()
    assert len(lines) == 7
    # A run stopped midway: the last game lost, the line before it torn.
    results.write_text("\n".join(lines[:5]) + "\n" + lines[5][:20])
    assert arena.main(argv) == 0
    again = capsys.readouterr().out
    assert "5 games recorded, 2 to play" in again
    def scores_table(out):   # the score rows; thinking times differ from run to run
        return [line for line in out.splitlines() if line.startswith("hadron") and " vs " in line]
    assert scores_table(again) == scores_table(first) and len(scores_table(first)) == 3
    # --report plays nothing, even for games the file lacks.
    kept = results.read_text()
    assert arena.main(argv[:3] + ["--games", "5"] + argv[5:] + ["--report"]) == 0
    report = capsys.readouterr().out
    assert "7 games recorded, 0 to play" in report and results.read_text() == kept
    assert "mcts2 vs mcts1" in report
    # Two processes play the same seeded games (level 1 and 2 searches are never cut).
    parallel = tmp_path / "parallel.jsonl"
    assert arena.main(argv[:-1] + [str(parallel), "--jobs", "2"]) == 0
    def scores(path):
        return sorted((r["a"], r["b"], r["index"], r["score"])
                      for r in map(json.loads, path.read_text().splitlines() if path == parallel
                                   else lines))
    assert scores(parallel) == scores(results)


def test_arena_reports_the_score_by_seat(tmp_path, capsys):
    from games import arena
    results = tmp_path / "arena.jsonl"
    # Even games are those the first-named player moves first in: it won both; of the odd
    # ones, where it moved second, one and a draw.
    records = [{"game": "hadron", "options": {"size": 5}, "a": "mcts4", "b": "mcts4-old",
                "seed": 1, "index": index, "score": score, "cpu": [0.1], "cpu_b": [0.1],
                "wall_max": 0.1, "cut": 0}
               for index, score in enumerate([1.0, 1.0, 1.0, 0.5, 1.0, 0.0])]
    results.write_text("".join(json.dumps(record) + "\n" for record in records))
    assert arena.main(["hadron", "--pair", "mcts4:mcts4-old", "--games", "6", "--boards",
                       "default", "--seed", "1", "--results", str(results), "--report"]) == 0
    out = capsys.readouterr().out
    assert "moving first" in out.splitlines()[2]
    row = next(line for line in out.splitlines() if "mcts4 vs mcts4-old" in line)
    assert row.split()[-2:] == ["3/3", "1.5/3"]


def test_winning_chances_are_a_pair_that_sums_to_one_and_score_a_finished_game():
    state = games.get("hadron").new(size=5)
    first, second = winning_chances(state, playouts=200, seed=3)
    assert 0.0 < first < 1.0 and abs(first + second - 1.0) < 1e-9
    assert winning_chances(state, playouts=200, seed=3) == (first, second)
    rng = random.Random(5)
    while not state.is_over:
        state = state.play(rng.choice(state.legal_actions()))
    expected = (1.0, 0.0) if state.winner ^ state.swapped == 0 else (0.0, 1.0)
    assert winning_chances(state, playouts=10, seed=1) == expected


def test_winning_chances_see_a_won_position():
    """One action from a Hadron win for the mover: the estimate is all theirs."""
    rng = random.Random(11)
    for _ in range(200):
        state = games.get("hadron").new(size=5)
        while not state.is_over and not mcts.immediate_wins(state):
            state = state.play(rng.choice(state.legal_actions()))
        if not state.is_over:
            break
    chances = winning_chances(state, playouts=100, seed=1)
    assert chances[state.person_to_move] == 1.0


# -- AMAF ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["hadron", "copolymer", "colorful", "tripen"])
def test_amaf_counts_every_simulation_through_a_child_for_its_action(name):
    """Every simulation through a root child played the child's action as the root mover's
    first: its AMAF count holds at least the child's visits and wins (and with draws, the
    half points), and an action's count never exceeds the simulations of the root."""
    state = games.get(name).new()
    result = mcts.search(state, 400, random.Random(3), settle=False)
    root = result.tree
    drawn = root.amaf_drawn or {}
    for child in root.children:
        assert child.n <= root.amaf_n[child.action] <= root.n
        assert child.w <= root.amaf_won.get(child.action, 0) \
            + 0.5 * drawn.get(child.action, 0)


def test_amaf_counts_alike_without_the_c_counter(monkeypatch):
    """The pure-Python counter, for a Python without collections' C one, gives the same search
    move for move (it is only a faster loop)."""
    state = games.get("colorful").new()
    fast = mcts.search(state, 300, random.Random(4), settle=False)

    def count(mapping, iterable):
        for item in iterable:
            mapping[item] = mapping.get(item, 0) + 1

    monkeypatch.setattr(mcts, "_count_elements", count)
    slow = mcts.search(state, 300, random.Random(4), settle=False)
    assert (slow.action, slow.visits, slow.value) == (fast.action, fast.visits, fast.value)
