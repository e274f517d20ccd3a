"""A socket lives no longer than the log-in it was opened with.

A socket's user is fixed at its handshake (live.auth). Without more, a socket opened before a
log-out, a password change or a deactivation went on chatting and resigning for the old
session. So:

* every socket of a logged-in user joins the user's `account-<id>` group (live.sockets), in
  whatever server process it runs;
* a log-out sends that group `session.ended` with the session's key: the sockets opened with it
  close at once; a change to the account (a new password, deactivation: a save of the user
  row, unless its update_fields leave out the password and `is_active`) sends
  `session.check`: every socket of the user reads its session again
  (live.auth.user_of_session, the handshake's own check) and closes if it no longer names
  the user;
* actions that change anything (the game socket's moves, resignations, chat...) read the
  session again on the database thread that runs them, before the change, in case the news
  above was lost (one read of the session row and the user row, beside the change's own
  queries; the session is decoded and its hash checked again only when those rows changed).
  A move, a resignation, an abort or a claim reads them in its first statement, with the
  lock of its game's row (`rides_on_lock`, play.services.in_locked_game), and changes
  nothing if the log-in has ended.

A closed socket gets close code 4001; the page reconnects, and its new handshake is that of a
visitor (or of the new session).

A socket opened with a personal API token (live.auth.TokenGrant) lives no longer than the
token: it also joins the token's `token-<id>` group, whose revocation (api.tokens) closes it
at once with 4001; a change to the account asks whether the token still holds (its owner
deactivated); and each change it makes checks the token again instead of a session.
"""
import contextvars
import functools

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.signals import user_logged_out
from django.db import DEFAULT_DB_ALIAS, connections, router
from django.db.models.signals import post_save
from django.utils import timezone

from live import groups, outbox
from live.auth import (DB_SESSIONS, note_verdict, user_and_basis, user_of_session,
                       verdicts)
from live.sockets import Refusal

SESSION_CLOSE_CODE = 4001


account_group = groups.account


def still_logged_in(key, user_id):
    """(database thread) Whether session `key` still names the user `user_id` with the
    password and the active account it was opened with."""
    if key is None or user_id is None:
        return False
    if settings.SESSION_ENGINE != DB_SESSIONS:
        return getattr(user_of_session(key), "pk", None) == user_id
    # Every action of every socket asks this: the full check (two ORM reads, the session's
    # decoding) was a third of a move's CPU at saturation. One raw read of what the verdict
    # depends on (the session row, unexpired, and the user's password and active flag) is
    # taken every time; the full check runs again only when any of it changed since the
    # last check of this process, the socket's handshake's included (live.auth.verdicts).
    return judged(key, user_id, _session_and_user(key, user_id))


def judged(key, user_id, row):
    """(database thread) still_logged_in()'s verdict on what its read found: `row` is the
    session's stored data, the user's password hash and active flag, or None."""
    if row is None:
        return False
    kept = verdicts.get((key, user_id))
    if kept is not None and kept[0] == row:
        return kept[1]
    user, _ = user_and_basis(key)
    verdict = getattr(user, "pk", None) == user_id
    # The row read before the check: if anything changed in between, the next action's
    # read differs from it and checks again.
    note_verdict(key, user_id, row, verdict)
    return verdict


def _session_and_user(key, user_id):
    from django.contrib.sessions.models import Session

    alias = router.db_for_read(Session)
    with connections[alias].cursor() as cursor:
        cursor.execute(_read_sql(alias), read_params(key, user_id, alias))
        return cursor.fetchone()


@functools.cache
def _read_sql(alias):
    """The read of _session_and_user for one database, written once per process."""
    columns, session, user, on_session, on_user = _read_parts(alias)
    return f"SELECT {columns} FROM {session} s, {user} u WHERE {on_session} AND {on_user}"


@functools.cache
def joined_read(alias):
    """(columns, joins): the same read as parts of another statement on the database `alias`
    (play.statements.game_and_session), its parameters read_params(); the columns are NULL
    where the session (unexpired) or the user is missing (Riding.judge)."""
    columns, session, user, on_session, on_user = _read_parts(alias)
    return columns, f"LEFT JOIN {session} s ON {on_session} LEFT JOIN {user} u ON {on_user}"


def _read_parts(alias):
    from django.contrib.sessions.models import Session

    quote = connections[alias].ops.quote_name
    session, user = Session._meta, get_user_model()._meta
    return (f"s.{quote('session_data')}, u.{quote(user.get_field('password').column)}, "
            f"u.{quote(user.get_field('is_active').column)}",
            quote(session.db_table), quote(user.db_table),
            f"s.{quote('session_key')} = %s AND s.{quote('expire_date')} > %s",
            f"u.{quote(user.pk.column)} = %s")


def read_params(key, user_id, alias):
    return [key, connections[alias].ops.adapt_datetimefield_value(timezone.now()), user_id]


class SessionEnded(Refusal):
    """An action on a socket whose log-in has ended: answered, then the socket closes."""

    close_code = SESSION_CLOSE_CODE

    def __init__(self):
        super().__init__("session_ended", "you are no longer logged in here: reload the page")


class TokenEnded(Refusal):
    """An action on a socket whose API token was revoked (or its owner deactivated)."""

    close_code = SESSION_CLOSE_CODE

    def __init__(self):
        super().__init__("bad_token", "this token is revoked")


def token_checked(service, token_id):
    """`service`, run after checking that the socket's API token still holds."""
    from live.auth import bearer

    def run(*args, **kwargs):
        if not bearer.holds(token_id):
            raise TokenEnded()
        return service(*args, **kwargs)

    return run


def checked(service, key, user_id):
    """`service`, run after checking that the socket's session still names its user (on the
    same database thread, so the check costs no extra hop). A service marked `rides_on_lock`
    has its first statement read the session too (riding())."""

    def run(*args, **kwargs):
        if getattr(service, "rides_on_lock", False) and can_ride(key, user_id):
            check = Riding(key, user_id)
            pending = _riding.set(check)
            try:
                result = service(*args, **kwargs)
            finally:
                _riding.reset(pending)
            if not check.taken:  # marked so, it never read the session: a mistake here
                raise RuntimeError(f"{service.__qualname__} never read the session it rides on")
            return result
        if not still_logged_in(key, user_id):
            raise SessionEnded()
        return service(*args, **kwargs)

    return run


def rides_on_lock(service):
    """Mark `service` as one whose first statement locks its game's row (as
    play.services.in_locked_game does, taking riding()): checked() lets the session check ride
    on that statement."""
    service.rides_on_lock = True
    return service


# The session check of a service marked `rides_on_lock`: its game's lock reads the session row
# and the user row in the same statement (play.statements.game_and_session), one round trip
# less for every move.
class Riding:
    def __init__(self, key, user_id):
        self.key, self.user_id, self.taken = key, user_id, False

    def judge(self, columns):
        """Raise SessionEnded unless what the lock's statement read of joined_read()'s columns
        says the session still names the user (judged())."""
        row = None if columns[0] is None or columns[1] is None else tuple(columns)
        if not judged(self.key, self.user_id, row):
            raise SessionEnded()


_riding = contextvars.ContextVar("live_session_riding", default=None)


def riding():
    """(database thread) The session check that rides on the caller's first statement, taken
    from the running service; None when it has none (it checked already, or runs
    unchecked: a computer, a sweep)."""
    check = _riding.get()
    if check is None or check.taken:
        return None
    check.taken = True
    return check


def can_ride(key, user_id):
    from django.contrib.sessions.models import Session

    return (key is not None and user_id is not None
            and settings.SESSION_ENGINE == DB_SESSIONS
            and router.db_for_read(Session) == DEFAULT_DB_ALIAS)


# -- news for the sockets ------------------------------------------------------------------------

def logged_out(sender, request, user, **kwargs):
    if user is None or request is None or not hasattr(request, "session"):
        return
    key = request.session.session_key
    outbox.send(account_group(user.pk), {"type": "session.ended", "session": key})


# The fields of the user row a session depends on (its hash, Django's checks).
SESSION_FIELDS = {"password", "is_active"}


def account_changed(sender, instance, created, update_fields=None, **kwargs):
    if created or (update_fields is not None and not SESSION_FIELDS & set(update_fields)):
        return
    outbox.send_after_commit(groups.account(instance.pk), {"type": "session.check"})


def connect_signals():
    user_logged_out.connect(logged_out, dispatch_uid="live.sessions.logged_out")
    post_save.connect(account_changed, sender=get_user_model(),
                      dispatch_uid="live.sessions.account_changed")
