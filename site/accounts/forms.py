from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.core.validators import MaxLengthValidator, MinLengthValidator

from accounts.lookalike import RULE, check_new_username

USERNAME_MIN = 3
USERNAME_MAX = 20
USERNAME_HELP = (
    f"{USERNAME_MIN} to {USERNAME_MAX} characters: letters, digits and @ . + - _ only; "
    f"{RULE}."
)


class SignupForm(UserCreationForm):
    """Django's sign-up form with the site's username rules: short enough for a board
    caption, unique regardless of case so nobody can pose as "Alice" as "alice", and no
    look-alike of another name (accounts.lookalike)."""

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username",)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        field = self.fields["username"]
        field.help_text = USERNAME_HELP
        field.max_length = USERNAME_MAX
        field.widget.attrs.update(
            {"maxlength": USERNAME_MAX, "minlength": USERNAME_MIN, "autocomplete": "username"}
        )
        length_message = f"Usernames are {USERNAME_MIN} to {USERNAME_MAX} characters long."
        field.validators += [
            MinLengthValidator(USERNAME_MIN, message=length_message),
            MaxLengthValidator(USERNAME_MAX, message=length_message),
        ]

    def clean_username(self):
        username = self.cleaned_data["username"]
        check_new_username(username)
        return username
