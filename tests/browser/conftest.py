"""The browser tests run one after another on one xdist worker (`--dist loadgroup`, .ci/run).

Each drives Chromium and a Daphne server against a 20 s wait; on a two-core CI machine two of
them side by side starve each other, while one of them beside the tests that need no browser
costs little (those wait on sockets most of the time)."""
import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    # tryfirst: xdist's worker reads the group mark in its own hook of the same name.
    for item in items:
        if item.path.parent.name == "browser":
            item.add_marker(pytest.mark.xdist_group("browser"))
