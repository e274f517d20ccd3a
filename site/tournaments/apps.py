from django.apps import AppConfig
from django.conf import settings
from django.core import checks


@checks.register()
def schedule_is_valid(app_configs, **kwargs):
    """A malformed TOURNAMENT_SCHEDULE stops `check` and the server's start with the reason."""
    from tournaments import schedule

    try:
        schedule.entries()
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        return [checks.Error(f"TOURNAMENT_SCHEDULE: {error!r}", id="tournaments.E001")]
    return []


class TournamentsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tournaments"
    verbose_name = "Tournaments"

    def ready(self):
        from live import process
        from play.signals import berserk, game_ending, house_rules, occasion
        from tournaments import results, schedule, services

        game_ending.connect(results.game_ended, dispatch_uid="tournaments.results")
        house_rules.connect(results.house_rules, dispatch_uid="tournaments.house_rules")
        berserk.connect(results.berserk, dispatch_uid="tournaments.berserk")
        occasion.connect(results.occasion, dispatch_uid="tournaments.occasion")
        # Pairing waves and rounds: worked out on a thread of its own, off the event loop; an
        # arena wave's games start a slice at a time on a writer thread, between the moves.
        process.every(settings.TOURNAMENT_TICK, services.tick_live)
        # The next day's scheduled events (the first half a minute after the start).
        process.every(30, schedule.plan, aside=True)
