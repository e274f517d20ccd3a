"""live.sql's statements written once (written(), read(), counting(), instances()): what they
read is what the ORM reads, and a caller's values cannot go in a wrong place."""
import pytest
from django.contrib.auth import get_user_model

from live.sql import columns, counting, instances, read, written

pytestmark = pytest.mark.django_db


def test_counting_reads_what_count_reads(users):
    users("alice", "anna", "bob")
    found = get_user_model().objects
    for prefix in ("a", "b", "z"):
        matching = found.filter(username__startswith=prefix)
        assert read(written(counting(matching))) == [[matching.count()]]


def test_placeholders_must_be_the_statements_parameters():
    ids = get_user_model().objects.filter(pk__in=range(3)).values_list("pk")
    written(ids, range(3))
    with pytest.raises(AssertionError):
        written(ids, [0, 1])
    with pytest.raises(AssertionError):
        written(ids.filter(username="x"), range(3))


def test_a_statement_run_with_other_values_builds_what_the_orm_builds(users):
    alice, bob, _ = users("alice", "bob", "carol")
    model = get_user_model()
    statement = written(model.objects.filter(pk__in=range(2)).order_by("pk")
                        .values_list(*columns(model)), range(2))
    found = instances(model, statement, [bob.pk, alice.pk])
    expected = list(model.objects.filter(pk__in=[alice.pk, bob.pk]).order_by("pk"))
    assert [vars(user) | {"_state": None} for user in found] == \
        [vars(user) | {"_state": None} for user in expected]
    assert all(user._state.adding is False and user._state.db == "default" for user in found)
