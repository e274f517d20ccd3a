from django.apps import AppConfig
from django.conf import settings


class NotificationsConfig(AppConfig):
    name = "notifications"
    verbose_name = "Mail notices"

    def ready(self):
        from live import process
        from notifications import receivers
        from notifications.mail import send_pending

        receivers.connect()
        # Aside: a mail server's answer must never hold up a move.
        process.every(settings.MAIL_EVERY, send_pending, aside=True)
