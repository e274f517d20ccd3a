"""The floors of the house: an app imports only apps on the floors below its own, so the
imports run one way and the game core stays at the bottom (docs/design.md, "Floors").

Every module of every app under site/ is read with ast (imports inside functions count too);
the engine (games/) and third-party packages are not apps and may be imported anywhere. There
is no exception list: a new app must be given a floor here, and an import that would run
upward is a design question, answered by a hook the lower app offers (a signal, or a registry
filled at the upper app's ready(): play.signals, play.snapshots.add_part,
play.consumers.take, ratings.display.computers, live.sockets' signals), never by the import.
"""
import ast
from pathlib import Path

SITE = Path(__file__).resolve().parents[2] / "site"

# Lowest first. An app may import the apps of any floor below its own, none of its own floor
# or above.
FLOORS = [
    # The live path's machinery (sockets, lanes, outbox, channel groups, client addresses),
    # the drawing of boards, the pages' script modules: no app below them.
    ("live", "boards", "frontend"),
    # Who people are and how strong: accounts (and whether one is a computer), ratings; the
    # rules pages; the job runner, work outside the event loop (its worker processes and
    # queue: the computer players and analysis submit to it, it knows none of them).
    ("accounts", "ratings", "rules", "jobs"),
    # The game core: start, move, end, clocks, presence, the game socket and page.
    ("play",),
    # Around a game: its chat, the lobby that starts games.
    ("talk", "lobby"),
    # The computer players and their jobs; the mail notices (of moves and challenges).
    ("bots", "notifications"),
    # What is built of games and computers: tournaments, lessons and puzzles, the opening
    # explorer, the Watch page.
    ("tournaments", "learn", "explorer", "watch"),
    # The archive of finished games; a player's dashboard.
    ("archive", "dashboard"),
    # Analysis of archived games; the public API; the operators' health, metrics and logs
    # (they read the lanes, the sockets and the job queue).
    ("analysis", "api", "ops"),
    # The project: settings, routing, the home page.
    ("tessera",),
]
FLOOR = {app: level for level, apps in enumerate(FLOORS) for app in apps}
CORE_IMPORTS = {"live", "ratings", "accounts"}  # play's, besides the engine (games)


def apps():
    return sorted(path.name for path in SITE.iterdir() if (path / "__init__.py").exists())


def app_imports():
    """{(importer, imported): [module paths]} for every import of one app by another."""
    found = {}
    names = set(apps())
    for path in sorted(SITE.rglob("*.py")):
        relative = path.relative_to(SITE)
        importer = relative.parts[0]
        if importer not in names or "migrations" in relative.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module]
            else:
                continue
            for module in modules:
                imported = module.split(".")[0]
                if imported in names and imported != importer:
                    found.setdefault((importer, imported), []).append(str(relative))
    return found


def test_every_app_has_a_floor():
    assert sorted(set(apps()) - set(FLOOR)) == []
    assert sorted(set(FLOOR) - set(apps())) == []


def test_imports_run_down_the_floors_only():
    upward = [f"{importer} (floor {FLOOR[importer]}) imports {imported} "
              f"(floor {FLOOR[imported]}) in {', '.join(sorted(set(paths)))}"
              for (importer, imported), paths in sorted(app_imports().items())
              if FLOOR[imported] >= FLOOR[importer]]
    assert upward == []


def test_the_game_core_imports_only_live_ratings_and_accounts():
    found = {imported for importer, imported in app_imports() if importer == "play"}
    assert found <= CORE_IMPORTS, sorted(found - CORE_IMPORTS)


def test_live_imports_no_app():
    assert sorted(imported for importer, imported in app_imports() if importer == "live") == []


def test_no_two_apps_import_each_other_however_far_round():
    graph = {}
    for importer, imported in app_imports():
        graph.setdefault(importer, set()).add(imported)
    done, path = set(), []

    def visit(app):
        if app in path:
            return path[path.index(app):] + [app]
        if app in done:
            return None
        path.append(app)
        for nxt in sorted(graph.get(app, ())):
            cycle = visit(nxt)
            if cycle:
                return cycle
        path.pop()
        done.add(app)
        return None

    for app in sorted(graph):
        assert visit(app) is None
