"""The site names boards and endings one way on every page (lobby, Watch, Archive, profiles)."""
import pytest

from play.labels import options_text, reason_text


@pytest.mark.parametrize("game, options, text", [
    ("hadron", {"size": 7}, "7×7"),
    ("tripen", {"size": 9}, "9×9"),
    ("copolymer", {"size": 5}, "hexhex side 5"),
    ("colorful", {"board": "hexhex", "size": 5}, "hexhex side 5"),
    ("colorful", {"board": "long", "size": 4}, "long board side 4"),
])
def test_options_text(game, options, text):
    assert options_text(game, options) == text


def test_reason_text():
    assert [reason_text(r) for r in ("normal", "resign", "time", "abort")] == [
        "played out", "resignation", "on time", "aborted"]
