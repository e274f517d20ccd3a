"""The import graph of the site's ES modules (static/js), read from their import statements,
so a page can ask for every module it will need at once (<link rel="modulepreload">) instead
of discovering them one round trip at a time: "ES modules, no build step" without the
waterfall.

Only static imports of relative paths are followed (`import ... from "./x.js"`,
`export ... from "../y.js"`); a module loaded with import() at run time (a board module) is
named by the page as a second entry.
"""
import re
from functools import lru_cache
from pathlib import PurePosixPath

from django.conf import settings
from django.contrib.staticfiles import finders

IMPORT = re.compile(
    r"""^\s*(?:import|export)\b[^"';]*?(?:\bfrom\s*)?["'](\.{1,2}/[^"']+\.js)["']""",
    re.MULTILINE)


def imports_of(path: str) -> list[str]:
    """The static paths ("js/dom.js") that the module at static path `path` imports."""
    found = finders.find(path)
    if found is None:
        raise ValueError(f"no static file {path!r}")
    with open(found, encoding="utf-8") as source:
        text = source.read()
    base = PurePosixPath(path).parent
    return [normal(base / relative) for relative in IMPORT.findall(text)]


def normal(path: PurePosixPath) -> str:
    parts = []
    for part in path.parts:
        if part == "..":
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def graph(*entries: str) -> list[str]:
    """Every module reachable from `entries`, entries first, each once (depth-first order)."""
    if settings.DEBUG:
        return _walk(entries)   # the files change while one works on them
    return list(_cached(entries))


@lru_cache(maxsize=64)
def _cached(entries: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(_walk(entries))


def _walk(entries) -> list[str]:
    seen: dict[str, None] = {}
    stack = list(reversed(entries))
    while stack:
        path = stack.pop()
        if path in seen:
            continue
        seen[path] = None
        stack.extend(reversed(imports_of(path)))
    return list(seen)
