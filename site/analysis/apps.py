from django.apps import AppConfig


class AnalysisConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "analysis"
    verbose_name = "Computer analysis of finished games, hints in explore mode"

    def ready(self):
        from analysis.answers import analysis_answer
        from analysis.services import analysis_of
        from play import pages

        # The stored analysis is part of what a finished game's page shows (its panel).
        pages.add_fact(lambda game: analysis_answer(game, analysis_of(game)))
