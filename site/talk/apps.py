from django.apps import AppConfig


class TalkConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "talk"
    verbose_name = "Chat on the game page"

    def ready(self):
        # The chat rides on the game's page and socket, which play composes without knowing
        # of it: the snapshot's "chat" and the socket's `chat` message come from here.
        from play import consumers, snapshots

        from talk import services

        snapshots.add_part("chat", services.lines_for)
        consumers.take("chat", services.socket_chat, services.LOGIN_REQUIRED)
