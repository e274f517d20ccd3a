"""The api app's answers to play's questions (play.signals): a bot account plays through the
API, not on the game page."""
from api.tokens import marked_bot_account


def plays_elsewhere(sender, user_id, **extra):
    if marked_bot_account(user_id):
        return "a bot account plays through the API (docs/api.md), not on the game page"
    return None
