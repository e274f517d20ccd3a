"""`python manage.py startgame GAME USER0 USER1 [--option size=5] [--time 5+3 | --days 3] [--rated]`

Start a game between two existing players (USER0 moves first) and print its URL: for
operators, and for tests that drive a separate server process.
"""
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from play.clock import TimeControl
from play.services import start_game


def option_pair(text):
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise ValueError(f"an option is name=value, not {text!r}")
    return name.strip(), value.strip()


class Command(BaseCommand):
    help = "Start a game between two players and print its URL."

    def add_arguments(self, parser):
        parser.add_argument("game", help="copolymer, hadron, tripen or colorful")
        parser.add_argument("user0", help="moves first")
        parser.add_argument("user1")
        parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                            help="a game option, e.g. size=7 (repeatable)")
        clock = parser.add_mutually_exclusive_group()
        clock.add_argument("--time", metavar="MIN+INC", help="realtime, e.g. 5+3")
        clock.add_argument("--days", type=int, help="correspondence: days per move")
        parser.add_argument("--rated", action="store_true", help="the result changes ratings")

    def handle(self, *args, game, user0, user1, option, time, days, rated, **kwargs):
        try:
            options = dict(option_pair(text) for text in option)
            if time:
                time_control = TimeControl.parse(time)
            elif days is not None:
                time_control = TimeControl.correspondence(days)
            else:
                time_control = TimeControl.untimed()
            players = (self.user(user0), self.user(user1))
            record = start_game(game=game, options=options, players=players,
                                time_control=time_control, rated=rated)
        except ValueError as error:
            raise CommandError(str(error))
        self.stdout.write(record.get_absolute_url())

    def user(self, username):
        User = get_user_model()
        try:
            return User.objects.get(username__iexact=username)
        except User.DoesNotExist:
            raise ValueError(f"there is no player {username!r}")
