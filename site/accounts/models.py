"""A player's own choices, kept on the server so they follow them from browser to browser:
which mails they want, how the board behaves. Also whether the account is a computer player
(set by the bots' app): leaderboards list people only."""
from django.conf import settings
from django.db import models


class Profile(models.Model):
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="profile")
    is_bot = models.BooleanField("computer player", default=False,
                                 help_text="Rated like anyone, marked as a computer, left off "
                                           "the leaderboards.")

    # Opt-in mail (notifications.mail), to the account's e-mail address.
    mail_on_move = models.BooleanField(
        "Mail me when a correspondence opponent has moved", default=False,
        help_text="One mail for a burst of moves, not one per move.")
    mail_on_challenge = models.BooleanField("Mail me when someone challenges me", default=False)

    # Board choices: the game page reads them (templates/base.html's "account-prefs").
    show_hints = models.BooleanField("Show legal-move hints on the board", default=True)
    sounds = models.BooleanField("Play sounds", default=True)
    confirm_move = models.BooleanField("Confirm each move before it is sent", default=False)
    hide_chat = models.BooleanField("Hide the chat", default=False)

    BOARD_PREFS = ("show_hints", "sounds", "confirm_move", "hide_chat")

    def __str__(self):
        return f"profile of {self.user}"

    def board_prefs(self) -> dict:
        return {name: getattr(self, name) for name in self.BOARD_PREFS}


def is_computer(user) -> bool:
    """Whether `user` is a computer player. Free where the profile was loaded with the user
    (play loads it with a game's players); one query otherwise."""
    profile = getattr(user, "profile", None)  # a missing profile reads as None here
    return profile is not None and profile.is_bot


def profile_of(user) -> Profile:
    """The player's profile, made with the defaults the first time it is asked for."""
    try:
        return user.profile
    except Profile.DoesNotExist:
        profile, _ = Profile.objects.get_or_create(user=user)
        user.profile = profile
        return profile
