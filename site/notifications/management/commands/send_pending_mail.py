"""`python manage.py send_pending_mail`: send the opt-in mail notices that are due (for a
cron job; the server's sweeper calls notifications.mail.send_pending itself)."""
from django.core.management.base import BaseCommand

from notifications.mail import send_pending


class Command(BaseCommand):
    help = "Send the mail notices that are due (opponent moved, challenge arrived)."

    def handle(self, *args, **options):
        self.stdout.write(f"sent {send_pending()} mail(s)")
