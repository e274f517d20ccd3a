"""What every page knows about the logged-in player's account: the board choices of their
settings, which base.html hands to the page scripts as JSON (static/js/account-prefs.js)."""
from accounts.models import profile_of


def account_prefs(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"account_prefs": profile_of(user).board_prefs()}
