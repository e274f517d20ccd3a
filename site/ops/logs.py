"""Log lines: every record carries the process id and, where known, the game and user ids
(ops.context); LOG_FORMAT=json writes each as one JSON object (python-json-logger).

No secret goes into a log line: Django never logs passwords or session keys itself, but the SQL
it logs at DEBUG (django.db.backends, when DEBUG is on) carries both (session keys, password
hashes), so settings keep that logger at INFO; and each line is scrubbed of password reset
tokens, which travel in URLs ("Not Found: /accounts/password/reset/<uid>/<token>/...").
"""
import logging
import re

import pythonjsonlogger.core
import pythonjsonlogger.json

from ops import context

RESET_TOKEN = re.compile(r"(/reset/[^/\s]+/)[^/\s]+")


class ContextFilter(logging.Filter):
    def filter(self, record):
        record.game_id = context.game_id.get()
        record.user_id = context.user_id.get()
        return True


def scrubbed(line):
    return RESET_TOKEN.sub(r"\1[hidden]", line) if "/reset/" in line else line


class TextFormatter(logging.Formatter):
    def format(self, record):
        return scrubbed(super().format(record))


class JsonFormatter(pythonjsonlogger.json.JsonFormatter):
    """The record's own fields, those named in the format, and extras other than Django's
    request object (its repr is the full path, and it is not the line's to carry)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("reserved_attrs", [*pythonjsonlogger.core.RESERVED_ATTRS, "request"])
        super().__init__(*args, **kwargs)

    def format(self, record):
        return scrubbed(super().format(record))


def settings_logging(log_format, level):
    """Django's LOGGING for settings.py."""
    if log_format == "json":
        formatter = {
            "()": "ops.logs.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(process)d %(game_id)s %(user_id)s "
                   "%(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger",
                              "process": "pid"},
        }
    else:
        formatter = {"()": "ops.logs.TextFormatter", "format": "%(asctime)s %(levelname)s %(name)s [pid %(process)d game "
                               "%(game_id)s user %(user_id)s] %(message)s"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "ops.logs.ContextFilter"}},
        "formatters": {"line": formatter},
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "line",
                                 "filters": ["context"]}},
        "root": {"handlers": ["console"], "level": level},
        "loggers": {
            # Django's own loggers follow LOG_LEVEL too (Django's default holds them at INFO)...
            "django": {"level": level},
            # ...except this one: its DEBUG lines are SQL with parameters (session keys,
            # password hashes).
            "django.db.backends": {"level": "INFO"},
        },
    }
