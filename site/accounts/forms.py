from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm, UserCreationForm
from django.core.validators import MaxLengthValidator, MinLengthValidator

from accounts.lookalike import RULE, check_new_username
from accounts.models import Profile

USERNAME_MIN = 3
USERNAME_MAX = 20
EMAIL_HELP = ("Only to reset a forgotten password, and for the mails you choose in your "
              "settings. Never shown to anyone.")
USERNAME_HELP = (
    f"{USERNAME_MIN} to {USERNAME_MAX} characters: letters, digits and @ . + - _ only; "
    f"{RULE}."
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
    caption, unique regardless of case so nobody can pose as "Alice" as "alice", and no
    look-alike of another name (accounts.lookalike)."""

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

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
        email = self.fields["email"]
        email.required = False
        email.label = "E-mail (optional)"
        email.help_text = EMAIL_HELP
        email.widget.attrs.update({"autocomplete": "email"})

    def clean_username(self):
        username = self.cleaned_data["username"]
        check_new_username(username)
        return username


class SettingsForm(forms.ModelForm):
    """The settings page: the account's e-mail address and the choices kept on its Profile."""

    # As long as the account's column holds (varchar(254)): a longer address is a form error,
    # not a database error.
    email = forms.EmailField(label="E-mail address", required=False, help_text=EMAIL_HELP,
                             max_length=get_user_model()._meta.get_field("email").max_length,
                             widget=forms.EmailInput(attrs={"autocomplete": "email"}))

    class Meta:
        model = Profile
        fields = ("mail_on_move", "mail_on_challenge", *Profile.BOARD_PREFS)

    MAIL_FIELDS = ("email", "mail_on_move", "mail_on_challenge")

    def __init__(self, *args, user, **kwargs):
        # Checkbox labels are sentences: no colon after them.
        super().__init__(*args, label_suffix="", **kwargs)
        self.user = user
        self.fields["email"].initial = user.email

    def clean(self):
        cleaned = super().clean()
        wants_mail = cleaned.get("mail_on_move") or cleaned.get("mail_on_challenge")
        if wants_mail and not cleaned.get("email") and not self.has_error("email"):
            self.add_error("email", "Give an e-mail address to receive mails.")
        return cleaned

    def mail_fields(self):
        return [self[name] for name in self.MAIL_FIELDS]

    def board_fields(self):
        return [self[name] for name in Profile.BOARD_PREFS]

    def save(self, commit=True):
        profile = super().save(commit=commit)
        self.user.email = self.cleaned_data["email"]
        if commit:
            self.user.save(update_fields=["email"])
        return profile
