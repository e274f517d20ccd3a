"""Play the computer: one form (on the home page, the Play page and its own page); a valid post
starts the game and lands the player on its page."""
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import redirect, render
from django.urls import reverse

from bots.forms import ComputerForm
from bots.services import TooManyComputerGames, start_computer_game


def computer(request):
    if request.method != "POST":
        return render(request, "bots/computer.html", {"computer_form": ComputerForm()})
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("bots:computer"))
    form = ComputerForm(request.POST)
    if not form.is_valid():
        return render(request, "bots/computer.html", {"computer_form": form}, status=400)
    try:
        game = start_computer_game(request.user, **form.computer_game())
    except TooManyComputerGames as refusal:
        form.add_error(None, str(refusal))
        return render(request, "bots/computer.html", {"computer_form": form}, status=409)
    return redirect(game.get_absolute_url())
