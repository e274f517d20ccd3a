from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse_lazy
from django.views.decorators.http import require_POST
from django.views.generic import FormView

from accounts.forms import LoginForm, SettingsForm, SignupForm
from accounts.models import Profile, profile_of

PASSWORD_BACKEND = "accounts.backends.CaseInsensitiveModelBackend"


class FormErrorMessageMixin:
    """Besides the errors beside each field, say at the top of the page that nothing was
    saved, so a mistake can't go unnoticed on a phone where the field is off-screen."""

    error_message = "Please correct the errors below."

    def form_invalid(self, form):
        messages.error(self.request, self.error_message)
        return super().form_invalid(form)


class SignupView(FormErrorMessageMixin, FormView):
    template_name = "accounts/signup.html"
    form_class = SignupForm
    error_message = "Your account was not created: please correct the errors below."

    def dispatch(self, request, *args, **kwargs):
        if request.user.is_authenticated:
            return redirect("accounts:profile", username=request.user.get_username())
        return super().dispatch(request, *args, **kwargs)

    def form_valid(self, form):
        user = form.save()
        # The password was just chosen, not checked: log in through the password backend
        # (the first backend, the log-in throttle, only guards password checks).
        login(self.request, user, backend=PASSWORD_BACKEND)
        messages.success(self.request, f"Welcome to Tessera, {user.get_username()}!")
        return redirect("home")


class LoginView(FormErrorMessageMixin, auth_views.LoginView):
    template_name = "accounts/login.html"
    form_class = LoginForm
    redirect_authenticated_user = True
    error_message = "You are not logged in: please check your username and password."

    def get(self, request, *args, **kwargs):
        # Sent here from a page that needs an account: say why.
        if request.GET.get(self.redirect_field_name) and not request.user.is_authenticated:
            messages.info(request, "Please log in to see that page.")
        return super().get(request, *args, **kwargs)

    def form_valid(self, form):
        messages.success(self.request, f"Welcome back, {form.get_user().get_username()}.")
        return super().form_valid(form)


class LogoutView(auth_views.LogoutView):
    # Django's LogoutView accepts POST only, so a link or prefetch can't log anyone out.
    def post(self, request, *args, **kwargs):
        was_logged_in = request.user.is_authenticated
        response = super().post(request, *args, **kwargs)
        if was_logged_in:
            messages.info(request, "You are logged out.")
        return response


class PasswordChangeView(FormErrorMessageMixin, auth_views.PasswordChangeView):
    template_name = "accounts/password_change.html"
    success_url = reverse_lazy("accounts:password_change")
    error_message = "Your password was not changed: please correct the errors below."

    def form_valid(self, form):
        messages.success(self.request, "Your password has been changed.")
        return super().form_valid(form)


class SettingsView(LoginRequiredMixin, FormErrorMessageMixin, FormView):
    """/accounts/settings/: e-mail, opt-in mails and board choices, kept per account."""

    template_name = "accounts/settings.html"
    form_class = SettingsForm
    success_url = reverse_lazy("accounts:settings")
    error_message = "Your settings were not saved: please correct the errors below."

    def get_form_kwargs(self):
        return {**super().get_form_kwargs(), "instance": profile_of(self.request.user),
                "user": self.request.user}

    def form_valid(self, form):
        form.save()
        messages.success(self.request, "Your settings are saved.")
        return super().form_valid(form)


@require_POST
@login_required
def board_pref(request):
    """One board choice changed on a game page (static/js/prefs.js): kept on the account, so it
    follows the player to other browsers. POST `name` (Profile.BOARD_PREFS) and `value`."""
    name, value = request.POST.get("name"), request.POST.get("value")
    if name not in Profile.BOARD_PREFS or value not in ("true", "false"):
        return JsonResponse({"ok": False, "message": "Unknown choice."}, status=400)
    profile = profile_of(request.user)
    setattr(profile, name, value == "true")
    profile.save(update_fields=[name])
    return JsonResponse({"ok": True})


# Forgotten passwords: Django's own views and tokens, in the site's layout.

class PasswordResetView(FormErrorMessageMixin, auth_views.PasswordResetView):
    template_name = "accounts/password_reset.html"
    email_template_name = "accounts/mail/password_reset.txt"
    subject_template_name = "accounts/mail/password_reset_subject.txt"
    success_url = reverse_lazy("accounts:password_reset_done")

    @property
    def extra_email_context(self):
        # The link is built from the configured address, never from the request's Host
        # header, which anyone can set ("Host: localhost:1" would mail a link to port 1).
        return {"site_url": settings.SITE_URL}


class PasswordResetDoneView(auth_views.PasswordResetDoneView):
    template_name = "accounts/password_reset_done.html"


class PasswordResetConfirmView(FormErrorMessageMixin, auth_views.PasswordResetConfirmView):
    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password_reset_complete")
    error_message = "Your password was not changed: please correct the errors below."


class PasswordResetCompleteView(auth_views.PasswordResetCompleteView):
    template_name = "accounts/password_reset_complete.html"


def profile(request, username):
    player = get_object_or_404(get_user_model(), username__iexact=username, is_active=True)
    return render(request, "accounts/profile.html", {"player": player})
