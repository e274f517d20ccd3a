"""One meaning for "the same username", wherever a typed name is looked up: log-in, the log-in
throttle and sign-up's "already taken".

Usernames ignore case. The database's case-insensitive match (`username__iexact`) is not one
rule: PostgreSQL's UPPER() turns the dotless "ı" into "I", so "vıctim" matched "victim" in the
log-in lookup, while the throttle, folding in Python, counted the guesses against "vıctim", an
account nobody has: the per-account lock was bypassed. Here the database only narrows the
candidates; the decision is `name_key` equality, made in Python, the same on every database and
for the throttle.
"""
import unicodedata

from django.contrib.auth import get_user_model


def name_key(name):
    """A username as compared: NFKC (as Django normalises usernames) and case folded."""
    return unicodedata.normalize("NFKC", name).casefold()


def same_name(queryset, name):
    """The account of `queryset` whose name is `name` in another case, or None."""
    key = name_key(name)
    for candidate in queryset.filter(username__iexact=name).order_by("pk"):
        if name_key(candidate.get_username()) == key:
            return candidate
    return None


def account_named(name):
    """The account a typed name means (any case), or None."""
    return same_name(get_user_model().objects.all(), name)
