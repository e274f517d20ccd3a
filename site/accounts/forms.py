from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.validators import MaxLengthValidator, MinLengthValidator

USERNAME_MIN = 3
USERNAME_MAX = 20
USERNAME_HELP = (
    f"{USERNAME_MIN} to {USERNAME_MAX} characters: letters, digits and @ . + - _ only."
)


class LoginForm(AuthenticationForm):
    """Django's log-in form, saying what is true here: usernames ignore case (the log-in
    backend matches them so), passwords do not."""

    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": "Please enter a correct username and password. "
                         "Usernames ignore case; passwords do not.",
    }


class SignupForm(UserCreationForm):
    """Django's sign-up form with the site's username rules: short enough for a board
    caption, and unique regardless of case so nobody can pose as "Alice" as "alice"."""

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
        taken = get_user_model().objects.filter(username__iexact=username).first()
        if taken is not None:
            raise forms.ValidationError(
                "The username “%(name)s” is already taken (usernames ignore case).",
                code="duplicate_username",
                params={"name": taken.username},
            )
        return username
