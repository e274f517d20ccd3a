from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend


class CaseInsensitiveModelBackend(ModelBackend):
    """Log in with the username in any case: sign-up keeps usernames unique regardless of
    case, so "alice" can only mean "Alice"."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if username is not None:
            match = get_user_model().objects.filter(username__iexact=username).first()
            if match is not None:
                username = match.get_username()
        return super().authenticate(request, username=username, password=password, **kwargs)
