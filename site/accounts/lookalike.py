"""Usernames that cannot pass for another player's.

A new name (sign-up, `manage.py adduser`, the admin) must:

* not be another name in another case: "ALICE" is "Alice";
* use one alphabet (script): "аlice" with a Cyrillic "а" mixes Cyrillic and Latin, which no
  real name needs and every impersonator does. Digits and @ . + - _ go with any script;
* not look like an existing name: both names are reduced to a skeleton, in which characters
  that Unicode lists as confusable (Cyrillic "а" and Latin "a", capital "I" and small "l",
  "0" and "O") become one, and equal skeletons are refused.

Scripts and confusable characters come from confusable_homoglyphs (Unicode's Scripts.txt and
the confusables list of UTS #39). The skeleton is a simplification of UTS #39's, towards ASCII:
each character becomes the ASCII letter or digit it can be taken for, one for one (so only
names of the same length are compared), and case is ignored, as everywhere in usernames.
"""
import functools
import re
import unicodedata

from confusable_homoglyphs import categories, confusables
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db.models.functions import Length

from accounts.names import same_name

RULE = "letters of one alphabet, and not a look-alike of another player's name"


# Within ASCII, the characters Unicode's confusables list sends to another ASCII character.
ASCII_FOLDS = {"0": "O", "1": "l", "I": "l"}


@functools.cache
def prototypes():
    """{non-ASCII character: the ASCII letter or digit it can be taken for} for every such
    character on Unicode's confusables list, e.g. Cyrillic "а" -> "a", Greek "Ι" -> "l"
    (through "I"). Built once."""
    table = {}
    for char, homoglyphs in confusables.confusables_data.items():
        if len(char) != 1 or char.isascii():
            continue
        ascii_glyphs = [h["c"] for h in homoglyphs
                        if len(h["c"]) == 1 and h["c"].isascii() and h["c"].isalnum()]
        if ascii_glyphs:
            table[char] = ASCII_FOLDS.get(ascii_glyphs[0], ascii_glyphs[0])
    return table


def skeleton(name):
    """What `name` looks like as written: NFKC, each character as the ASCII character it can be
    taken for, case folded, and again (so "Alice", "aIice", "a1ice" and "аlice" all read
    "alice"). Capital I becomes l before case folding: it is how the name shows."""
    table = prototypes()

    def fold(text):
        return "".join(ASCII_FOLDS.get(c, c) for c in (table.get(c, c) for c in text))

    return fold(fold(unicodedata.normalize("NFKC", name)).casefold())


def scripts_of(name):
    """The scripts of a name's letters (digits and punctuation belong to every script)."""
    return categories.unique_aliases(name) - {"COMMON"}


# The computer players' accounts (bots.accounts, made by the migrations): their names mark
# them, so nobody may take one, nor anything that reads like one once the characters that pass
# for others ("0" for "o", "1" for "l", Cyrillic letters) are folded and case and separators
# ("-", "_", ".", "+", "@") are dropped: "computer_level_4", "C0mputer-Level-3", "computerlevel".
COMPUTER_PREFIX = "computerlevel"


def passes_for_a_computer(name):
    return re.sub(r"[\W_]", "", skeleton(name)).startswith(COMPUTER_PREFIX)


def check_new_username(name, exclude_pk=None):
    """Raise ValidationError, saying why, if `name` is taken in another case, mixes scripts or
    looks like an existing player's name (other than the account `exclude_pk`, being renamed)."""
    users = get_user_model().objects.exclude(pk=exclude_pk)
    if passes_for_a_computer(name):
        raise ValidationError(
            "Names that read like “computer-level” belong to the site's computer players.",
            code="computer_username")
    taken = same_name(users, name)
    if taken is not None:
        raise ValidationError(
            "The username “%(name)s” is already taken (usernames ignore case).",
            code="duplicate_username", params={"name": taken.username})
    scripts = scripts_of(name)
    if len(scripts) > 1:
        raise ValidationError(
            "Use the letters of one alphabet: “%(name)s” mixes %(scripts)s letters, which makes "
            "names that look like someone else's.",
            code="mixed_script_username",
            params={"name": name, "scripts": " and ".join(sorted(s.title() for s in scripts))})
    wanted = skeleton(name)
    same_length = users.annotate(name_length=Length("username")).filter(name_length=len(name))
    for existing in same_length.values_list("username", flat=True).iterator():
        if skeleton(existing) == wanted:
            raise ValidationError(
                "“%(name)s” looks too much like the existing player “%(existing)s”: please "
                "choose a name nobody can mistake for theirs.",
                code="lookalike_username", params={"name": name, "existing": existing})
