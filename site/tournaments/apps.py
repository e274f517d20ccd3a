from django.apps import AppConfig
from django.conf import settings


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self):
        from live import process
        from play.signals import game_ending, house_rules
        from tournaments import results, services

        game_ending.connect(results.game_ended, dispatch_uid="tournaments.results")
        house_rules.connect(results.house_rules, dispatch_uid="tournaments.house_rules")
        # Pairing waves and rounds: a job on a thread of its own, off the event loop.
        process.every(settings.TOURNAMENT_TICK, services.tick, aside=True)
