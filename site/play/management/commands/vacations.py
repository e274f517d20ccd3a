"""`python manage.py vacations list | end USER | grant USER DAYS [--reason TEXT]`

The operator's hand on correspondence vacations (play.vacations):

* `list`: the players on vacation now, since when, until when at the latest, days left;
* `end USER`: end USER's vacation now, as their own return would (their turns get their time
  away back, the games' pages hear it);
* `grant USER DAYS`: add DAYS to USER's allowance for this year (kept as a VacationGrant); a
  vacation under way lasts that much longer.
"""
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from play import vacations


def days(delta):
    return f"{delta.total_seconds() / 86400:.1f}"


class Command(BaseCommand):
    help = "List vacations under way, end a player's vacation, or grant a player more days."

    def add_arguments(self, parser):
        actions = parser.add_subparsers(dest="action", required=True)
        actions.add_parser("list", help="the players on vacation now")
        end = actions.add_parser("end", help="end a player's vacation now")
        end.add_argument("username")
        grant = actions.add_parser("grant", help="add days to a player's allowance this year")
        grant.add_argument("username")
        grant.add_argument("days", type=int)
        grant.add_argument("--reason", default="", help="kept with the grant")

    def handle(self, *args, action, **options):
        now = timezone.now()
        if action == "list":
            self.list(now)
        elif action == "end":
            user = self.user(options["username"])
            try:
                vacation = vacations.end(user, now=now)
            except vacations.VacationError as refusal:
                raise CommandError(f"{user.username}: {refusal.message} ({refusal.code})")
            self.stdout.write(f"{user.username} is back; away since "
                              f"{vacation.started_at:%Y-%m-%d %H:%M} UTC, "
                              f"{days(vacations.days_left(user, now))} days left this year")
        else:
            user = self.user(options["username"])
            try:
                vacation = vacations.grant(user, options["days"], now=now,
                                           reason=options["reason"])
            except ValueError as error:
                raise CommandError(str(error))
            line = (f"{user.username}: {vacations.allowance_days(user, now)} days in {now.year}, "
                    f"{days(vacations.days_left(user, now))} left")
            if vacation is not None:
                line += f"; on vacation until {vacation.ends_by:%Y-%m-%d %H:%M} UTC at the latest"
            self.stdout.write(line)

    def list(self, now):
        rows = list(vacations.away())
        if not rows:
            self.stdout.write("nobody is on vacation")
            return
        for vacation in rows:
            user = vacation.user
            self.stdout.write(f"{user.username}\tsince {vacation.started_at:%Y-%m-%d %H:%M}\t"
                              f"until {vacation.ends_by:%Y-%m-%d %H:%M} UTC at the latest\t"
                              f"{days(vacations.days_left(user, now))} of "
                              f"{vacations.allowance_days(user, now)} days left")

    def user(self, username):
        User = get_user_model()
        try:
            return User.objects.get(username__iexact=username)
        except User.DoesNotExist:
            raise CommandError(f"there is no player {username!r}")
