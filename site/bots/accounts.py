"""The computer players' accounts: one per level of games.bots.LEVELS, made when first needed,
named `computer-level-<level>`: the name itself marks a computer and its level wherever it
appears (lobby, game page, Watch, archive, ratings, dashboards, and the JSON the pages' scripts
render). Their level is looked up on every move's news (bots.moves), so each process keeps the
small table in memory for a minute."""
import time

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from games import bots as engine_bots

PREFIX = "computer-level-"
CACHE_SECONDS = 60

_cache = {"at": None, "levels": {}}


def levels():
    """The engine's levels, lowest first."""
    return sorted(engine_bots.LEVELS)


def level_name(level):
    """How the site names a level: the engine's name for it when it has one."""
    named = getattr(engine_bots, "level_name", None)
    if named is not None:
        return named(level)
    return f"level {level}"


def username_of(level):
    return f"{PREFIX}{level}"


def bot_for(level):
    """The account that plays at `level` (made now if it does not exist yet)."""
    from accounts.models import Profile
    from bots.models import Bot

    if level not in engine_bots.LEVELS:
        raise ValueError(f"there is no level {level!r}")
    found = Bot.objects.select_related("user").filter(level=level).first()
    if found is None:
        User = get_user_model()
        try:
            with transaction.atomic():
                user, _ = User.objects.get_or_create(username=username_of(level))
                user.set_unusable_password()
                user.save()
                Profile.objects.update_or_create(user=user, defaults={"is_bot": True})
                Bot.objects.create(user=user, level=level)
        except IntegrityError:
            pass  # another process made it first
        found = Bot.objects.select_related("user").get(level=level)
    if _cache["at"] is not None:
        # Another process may have made it since this one read the table.
        _cache["levels"][found.user_id] = level
    return found.user


def level_of(user_id):
    """The level of the computer player with this user id; None for a person. Served from a
    per-process copy of the table, at most CACHE_SECONDS old."""
    return _levels().get(user_id)


def bot_ids():
    """The user ids of every computer player (from the same per-process copy)."""
    return list(_levels())


def is_bot(user_id):
    return level_of(user_id) is not None


def _levels():
    from bots.models import Bot

    now = time.monotonic()
    if _cache["at"] is None or now - _cache["at"] > CACHE_SECONDS:
        _cache["levels"] = dict(Bot.objects.values_list("user_id", "level"))
        _cache["at"] = now
    return _cache["levels"]


def forget(known=None):
    """Drop this process's copy of the table (read again when next needed), or set it to
    `known` ({user id: level}): the tests start each test with no computer."""
    if known is None:
        _cache["at"] = None
    else:
        _cache["levels"], _cache["at"] = dict(known), time.monotonic()
