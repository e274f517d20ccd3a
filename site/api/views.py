"""The API tokens page (/accounts/tokens/): make, list and revoke tokens, and turn a fresh
account into a bot account. Forms with CSRF, like the rest of the settings."""
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from api import tokens
from api.forms import TokenForm, UpgradeForm
from api.models import ApiToken


def page(request, form=None, secret=None, upgrade=None, status=200):
    bot = tokens.is_bot_account(request.user)
    return render(request, "api/tokens.html", {
        "form": form or TokenForm(bot=bot),
        "upgrade_form": upgrade or UpgradeForm(),
        "tokens": ApiToken.objects.filter(user=request.user),
        "secret": secret, "bot": bot,
    }, status=status)


@login_required
def tokens_page(request):
    if request.method != "POST":
        return page(request)
    form = TokenForm(request.POST, bot=tokens.is_bot_account(request.user))
    if not form.is_valid():
        return page(request, form=form, status=400)
    try:
        _, secret = tokens.create(request.user, form.cleaned_data["name"],
                                  form.cleaned_data["scopes"], form.cleaned_data["days"])
    except tokens.TokenError as error:
        form.add_error(None, str(error))
        return page(request, form=form, status=400)
    # Shown once, in this answer only: never stored, never in a URL or a message cookie.
    response = page(request, secret=secret)
    response["Cache-Control"] = "no-store"
    return response


@require_POST
@login_required
def revoke(request, token_id):
    if tokens.revoke(request.user, token_id):
        messages.success(request, "The token is revoked.")
    else:
        messages.error(request, "There is no such token to revoke.")
    return redirect("api_tokens")


@require_POST
@login_required
def upgrade(request):
    form = UpgradeForm(request.POST)
    if not form.is_valid():
        return page(request, upgrade=form, status=400)
    try:
        tokens.upgrade_to_bot(request.user)
    except tokens.TokenError as error:
        messages.error(request, str(error))
        return redirect("api_tokens")
    messages.success(request, "This account is now a bot account.")
    return redirect("api_tokens")
