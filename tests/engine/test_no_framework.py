"""The engine is plain Python: nothing in games/ imports Django, Channels or their servers."""

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "games"
FRAMEWORKS = {"django", "channels", "channels_redis", "daphne", "asgiref", "twisted",
              "autobahn", "whitenoise", "dj_database_url", "psycopg", "redis"}

# Run in a clean interpreter (-I: no PYTHONPATH, no user site, no current directory).
IMPORT_ALL = """
import importlib, json, pkgutil, sys
sys.path.insert(0, {root!r})
import games
for module in pkgutil.iter_modules(games.__path__):
    importlib.import_module("games." + module.name)
for name in games.names():
    games.get(name)
print(json.dumps(sorted({{name.split(".")[0] for name in sys.modules}})))
"""


def test_importing_every_engine_module_loads_no_framework():
    run = subprocess.run([sys.executable, "-I", "-c", IMPORT_ALL.format(root=str(ROOT))],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    loaded = set(json.loads(run.stdout))
    assert "games" in loaded
    assert not loaded & FRAMEWORKS, sorted(loaded & FRAMEWORKS)


def imported_names(path):
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            yield node.module
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                "import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
            yield node.args[0].value


def test_no_framework_import_in_the_source():
    sources = sorted(PACKAGE.glob("**/*.py"))
    assert PACKAGE / "hadron.py" in sources
    for path in sources:
        for name in imported_names(path):
            top = name.lstrip(".").split(".")[0]
            assert top not in FRAMEWORKS, f"{path.relative_to(ROOT)} imports {name}"
