from django.apps import AppConfig


class ApiConfig(AppConfig):
    name = "api"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from api.receivers import plays_elsewhere
        from api.tokens import holds, is_bot_account, marked_bot_account, socket_grant
        from live.auth import bearer
        from lobby.services import bot_accounts
        from play.signals import plays_elsewhere as asked
        from ratings.display import computers

        asked.connect(plays_elsewhere, dispatch_uid="api-bot-accounts-play-through-the-api")
        # The BOT mark beside a bot account's name (ratings sits below api).
        computers.is_bot_account = marked_bot_account
        # A token on a websocket's handshake (live.auth, below api).
        bearer.grant, bearer.holds = socket_grant, holds
        # Rated challenges to or from a bot account, when BOT_ACCOUNTS_RATED is off.
        bot_accounts.is_bot_account = is_bot_account
