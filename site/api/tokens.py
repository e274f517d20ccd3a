"""Making, finding and revoking personal API tokens (api.models.ApiToken)."""
import hashlib
import secrets
import threading
import time
from datetime import timedelta
from functools import lru_cache

from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.utils import timezone

from api.models import ApiToken, BotAccount, Scope, live_tokens
from live import groups, outbox
from live.auth import TokenGrant
from live.sql import column, fetch, prepared, table

# Recognisable in a leaked-secrets scan, like GitHub's "ghp_".
SECRET_PREFIX = "tsr_"
SHOWN = 8  # characters of the secret kept and shown after creation
MAX_TOKENS = 20
# The BOT mark beside names (ratings.display.marked) reads a per-process copy of the bot
# accounts, at most this old: a new bot account shows its mark within a minute everywhere.
MARK_CACHE_SECONDS = 60
_marked = {"at": None, "ids": frozenset()}
# Only record a use when the last one recorded is older than this: one UPDATE a minute per
# token at most, not one per request.
USE_RESOLUTION_SECONDS = 60


class TokenError(Exception):
    pass


def digest_of(secret):
    return hashlib.sha256(secret.encode()).hexdigest()


def create(user, name, scopes, days=None):
    """(token, secret): the secret exists only in this return value. With `days`, the token
    expires that many days from now."""
    scopes = sorted(set(scopes))
    if not scopes or any(scope not in Scope.values for scope in scopes):
        raise TokenError("Choose at least one scope.")
    if Scope.BOT in scopes and not is_bot_account(user):
        raise TokenError("Only a bot account can have the bot play scope.")
    with transaction.atomic():
        if ApiToken.objects.filter(user=user, revoked_at=None).count() >= MAX_TOKENS:
            raise TokenError(f"You already have {MAX_TOKENS} tokens: revoke one first.")
        secret = SECRET_PREFIX + secrets.token_urlsafe(32)
        expires = timezone.now() + timedelta(days=days) if days else None
        token = ApiToken.objects.create(user=user, name=name, scopes=scopes,
                                        prefix=secret[:SHOWN], digest=digest_of(secret),
                                        expires_at=expires)
    return token, secret


def find(secret):
    """The live token with this secret, its user with it, or None (unknown, revoked or
    expired: the database is asked on every request, so a revocation holds at once)."""
    if not secret or len(secret) > 200:
        return None
    token = (ApiToken.objects.select_related("user")
             .filter(live_tokens(), digest=digest_of(secret)).first())
    if token is not None:
        now = timezone.now()
        if (token.last_used_at is None
                or (now - token.last_used_at).total_seconds() > USE_RESOLUTION_SECONDS):
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
            token.last_used_at = now
    return token


# The game actions of the API (api.endpoints.act) find their token in a per-process copy
# (digest -> the ApiToken, its user with it), kept this long, so that a request costs no
# database hop before its action: the action's own job asks the database whether the token
# still holds (standing(), one read beside the action's, as the game socket does with its
# token), so a revocation or an expiry still refuses the very next action. A copy older than
# this is found again (find(): which also records the use, at most once a minute).
GRANT_SECONDS = USE_RESOLUTION_SECONDS
GRANTS_KEPT = 10_000
_grants = {}  # digest -> (ApiToken, when it was found: time.monotonic())
_grants_lock = threading.Lock()


def kept(secret):
    """(digest, the ApiToken of `secret` from this process's copy, or None when there is none
    young enough). Any thread: only a dict read."""
    digest = digest_of(secret)
    with _grants_lock:
        found = _grants.get(digest)
    if found is None or time.monotonic() - found[1] > GRANT_SECONDS:
        return digest, None
    return digest, found[0]


def keep(digest, token):
    with _grants_lock:
        if len(_grants) >= GRANTS_KEPT:
            _grants.clear()
        _grants[digest] = (token, time.monotonic())


def forget(token_id):
    """Drop the copy of a token this process knows is no longer live."""
    with _grants_lock:
        for digest, (token, _) in list(_grants.items()):
            if token.pk == token_id:
                del _grants[digest]


def standing(token_id):
    """(database thread) None when the token no longer works (revoked, expired, its owner
    inactive); else whether its owner is a bot account. One statement, written once
    (live.sql), for every action made with a token (the API's and the game socket's)."""
    sql, expires = _standing_sql(connection.vendor)
    rows = fetch(sql, [token_id, prepared(expires, timezone.now())])
    return None if not rows else rows[0][0] is not None


@lru_cache(maxsize=None)
def _standing_sql(vendor):
    user = get_user_model()
    return ("SELECT b.{bot_id} FROM {tokens} t JOIN {users} u ON u.{user_pk} = t.{owner} "
            "LEFT JOIN {bots} b ON b.{bot_user} = t.{owner} "
            "WHERE t.{pk} = %s AND t.{revoked} IS NULL AND u.{active} "
            "AND (t.{expires} IS NULL OR t.{expires} > %s)").format(
        bot_id=column(BotAccount, "id"), tokens=table(ApiToken), users=table(user),
        user_pk=column(user, user._meta.pk.name), owner=column(ApiToken, "user"),
        bots=table(BotAccount), bot_user=column(BotAccount, "user"),
        pk=column(ApiToken, "id"), revoked=column(ApiToken, "revoked_at"),
        active=column(user, "is_active"), expires=column(ApiToken, "expires_at"),
    ), ApiToken._meta.get_field("expires_at")


def revoke(user, token_id):
    """Revoke one of `user`'s tokens; False when it has no such live token. Requests with it
    fail from now on (find() reads the table every time); the sockets and API streams open
    with it close once the revocation is committed (the token's channel-layer group)."""
    with transaction.atomic():
        revoked = bool(ApiToken.objects.filter(pk=token_id, user=user, revoked_at=None)
                       .update(revoked_at=timezone.now()))
        if revoked:
            outbox.send_after_commit(groups.token(token_id), {"type": "token.revoked"})
    if revoked:
        forget(token_id)
    return revoked


def holds(token_id):
    """Whether the token is still live (not revoked, not expired) and its owner active (for
    an open socket or stream)."""
    return standing(token_id) is not None


def socket_grant(secret):
    """(user, live.auth.TokenGrant) for a websocket handshake with this token, or None: it
    watches with a read scope (read, play or bot play), and plays with the play scope, or
    with bot play for a bot account (whose cookie cannot play on the socket)."""
    token = find(secret)
    if token is None:
        return None
    scopes = set(token.scopes)
    bot = is_bot_account(token.user)
    needed = Scope.BOT if bot else Scope.PLAY
    return token.user, TokenGrant(
        token_id=token.pk, reads=bool(scopes & {Scope.READ, Scope.PLAY, Scope.BOT}),
        plays=needed in scopes,
        why_not=f"this token lacks the scope: {Scope(needed).label.lower()}")


def is_bot_account(user):
    return BotAccount.objects.filter(user_id=user.pk).exists()


def marked_bot_account(user_id):
    """Whether `user_id` is a bot account, from the per-process copy (for the BOT mark)."""
    now = time.monotonic()
    if _marked["at"] is None or now - _marked["at"] > MARK_CACHE_SECONDS:
        _marked["ids"] = frozenset(BotAccount.objects.values_list("user_id", flat=True))
        _marked["at"] = now
    return user_id in _marked["ids"]


def forget_marks():
    _marked["at"] = None


def upgrade_to_bot(user):
    """Turn a fresh account (no game ever played) into a bot account, for good."""
    from play.models import Game

    with transaction.atomic():
        if is_bot_account(user):
            raise TokenError("This account is already a bot account.")
        if Game.objects.of_player(user).exists():
            raise TokenError("Only an account that has never played a game can become a bot.")
        BotAccount.objects.create(user=user)
    forget_marks()
