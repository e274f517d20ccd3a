"""Log-in throttle: django-axes counts failed log-ins per account and per client address, and
once either reaches settings.AXES_FAILURE_LIMIT within settings.AXES_COOLOFF_TIME, log-ins for
that account, and from that address, are refused without checking the password until the
cool-off has passed. The hooks django-axes calls (settings.AXES_*) live here:

* which account a log-in is for: usernames ignore case on this site, so "Alice" and "alice"
  are one account for the throttle too;
* which address it comes from: the socket's peer, unless settings.TRUSTED_PROXY_COUNT says
  how many proxies in front of Daphne append to X-Forwarded-For;
* what a refused log-in is told: the log-in page (or JSON) with HTTP 429 and how long to wait.
"""
import math

from axes.backends import AxesStandaloneBackend
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth.forms import AuthenticationForm
from django.db.models import Max, Q
from django.http import JsonResponse
from django.shortcuts import render
from django.utils import timezone

from accounts.names import name_key
from live import clients


class LoginThrottleBackend(AxesStandaloneBackend):
    """Refuses log-ins while their account or address is locked out (first in
    AUTHENTICATION_BACKENDS; the next backend checks the password).

    A call without a request comes from code on the server (`manage.py shell`, a test), not
    from a client: there is nobody to throttle, so it goes straight to the password check."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def throttled_username(request, credentials):
    """The account a log-in attempt is for (AXES_USERNAME_CALLABLE): the name typed, in one
    case, so that guessing at "Alice", "alice" and "ALICE" fills one account's count; the same
    key as the log-in lookup's (accounts.names)."""
    if credentials:
        name = credentials.get("username")
    else:
        name = getattr(request, "POST", {}).get("username")
    return name_key(name) if isinstance(name, str) else None


def client_address(request):
    """The address a request comes from (AXES_CLIENT_IP_CALLABLE): live.clients."""
    return clients.of_request(request)


def seconds_until_unlocked(request, credentials=None):
    """An upper bound on the time until log-ins for this account and from this address are
    allowed again: every failure that counts is older than the cool-off by then. Failures
    while locked out are not recorded (AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT off), so
    the wait does not grow while someone keeps guessing."""
    name = throttled_username(request, credentials)
    address = getattr(request, "axes_ip_address", None) or client_address(request)
    cool_off = settings.AXES_COOLOFF_TIME
    latest = (AccessAttempt.objects
              .filter(Q(username=name) | Q(ip_address=address))
              .filter(attempt_time__gte=timezone.now() - cool_off)
              .aggregate(latest=Max("attempt_time"))["latest"])
    if latest is None:
        return 0
    return max(0, math.ceil((latest + cool_off - timezone.now()).total_seconds()))


def wait_in_words(seconds):
    minutes = math.ceil(seconds / 60)
    if minutes <= 1:
        return "a minute"
    return f"{minutes} minutes"


def lockout_message(seconds):
    return (f"Too many failed log-ins for this account or from your address, so log-in is "
            f"paused. Please try again in {wait_in_words(seconds)}.")


def wants_json(request):
    accept = request.META.get("HTTP_ACCEPT", "")
    return (request.META.get("HTTP_X_REQUESTED_WITH") == "XMLHttpRequest"
            or ("application/json" in accept and "text/html" not in accept))


def lockout_response(request, original_response=None, credentials=None):
    """What a locked-out log-in gets (AXES_LOCKOUT_CALLABLE): HTTP 429 with Retry-After, and
    either JSON (`{"error": "login_throttled", "message", "retry_after"}`, for fetch) or the
    log-in page with the reason above the form and the username kept."""
    seconds = seconds_until_unlocked(request, credentials)
    message = lockout_message(seconds)
    if wants_json(request):
        response = JsonResponse(
            {"error": "login_throttled", "message": message, "retry_after": seconds}, status=429)
    else:
        form = AuthenticationForm(request, initial={"username": request.POST.get("username", "")})
        response = render(request, "accounts/login.html",
                          {"form": form, "throttled": message,
                           "next": request.POST.get("next", request.GET.get("next", ""))},
                          status=429)
    response["Retry-After"] = str(seconds)
    return response
