"""Make puzzles from this site's finished games: positions where the player to move had a
forced win and missed it, proven by the solver and re-checked independently before they are
stored (learn.mining). `--count N` tops a game up with computer games when the archive gives
fewer than N. Served beside the shipped set at /puzzles/<game>/. Safe to rerun: a game is
mined once, a position kept once."""
from django.core.management.base import BaseCommand, CommandError

import games
from games.puzzles import PER_GAME
from learn import mining


class Command(BaseCommand):
    help = __doc__.splitlines()[0]

    def add_arguments(self, parser):
        parser.add_argument("game", nargs="*",
                            help=f"the games to mine: {', '.join(games.names())} (default: all)")
        parser.add_argument("--count", type=int, default=0,
                            help="top each game up to this many mined puzzles with computer "
                                 "games when the archive gives fewer (default: archive only)")
        parser.add_argument("--seed", type=int, default=None,
                            help="the first computer game's seed (for --count; default: the "
                                 "first after the shipped set's and earlier runs' games)")
        parser.add_argument("--per-game", type=int, default=PER_GAME,
                            help=f"at most this many puzzles from one game ({PER_GAME})")

    def handle(self, *args, **options):
        unknown = set(options["game"]) - set(games.names())
        if unknown:
            raise CommandError(f"no such game: {', '.join(sorted(unknown))}")
        for name in options["game"] or games.names():
            mined = mining.mine_archive(name, per_game=options["per_game"], stdout=self.stdout)
            self.stdout.write(f"{name}: {mined.puzzles} puzzles from {mined.games} archived "
                              f"games ({mined.refused} refused by the re-check)")
            if options["count"]:
                played = mining.top_up(name, options["count"], seed=options["seed"],
                                       stdout=self.stdout)
                self.stdout.write(f"{name}: {played.puzzles} puzzles from {played.games} "
                                  f"computer games")
