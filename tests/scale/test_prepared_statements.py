"""On PostgreSQL the statements the live path repeats are prepared once per connection
(settings: prepare_threshold; Django's default None prepared nothing, so every move's
statements were parsed and planned again)."""
import pytest
from django.db import connection

from play import statements


@pytest.mark.django_db
def test_a_repeated_statement_is_prepared_on_the_connection():
    for _ in range(6):
        with pytest.raises(statements.Game.DoesNotExist):
            statements.game(987654321)
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any("FOR UPDATE" not in text and "WHERE" in text and "play_game" in text
               for text in prepared), prepared
