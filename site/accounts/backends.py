from django.contrib.auth.backends import ModelBackend

from accounts.names import account_named


class CaseInsensitiveModelBackend(ModelBackend):
    """Log in with the username in any case: sign-up keeps usernames unique regardless of
    case, so "alice" can only mean "Alice" (accounts.names: the rule the throttle counts by).
    A name that matches no account in that sense is looked up as typed, and fails."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is not None:
            match = account_named(username)
            if match is not None:
                username = match.get_username()
        return super().authenticate(request, username=username, password=password, **kwargs)
