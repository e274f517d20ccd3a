"""`python manage.py adduser NAME --password PW [--staff]`: create a player account from the
command line (local set-up, and tests that drive a separate server process)."""
from django.core.management.base import BaseCommand, CommandError

from accounts.forms import SignupForm


class Command(BaseCommand):
    help = "Create a player account, checked by the same rules as the sign-up page."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--password", required=True)
        parser.add_argument("--staff", action="store_true", help="may use the admin")

    def handle(self, *args, username, password, staff, **options):
        form = SignupForm({"username": username, "password1": password, "password2": password})
        if not form.is_valid():
            errors = "; ".join(str(e) for errs in form.errors.values() for e in errs)
            raise CommandError(f"{username}: {errors}")
        user = form.save()
        if staff:
            user.is_staff = user.is_superuser = True
            user.save(update_fields=["is_staff", "is_superuser"])
        self.stdout.write(f"created {user.get_username()}")
