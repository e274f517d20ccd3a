"""Log lines: every record carries the process id and, where known, the game and user ids
(ops.context); LOG_FORMAT=json writes each as one JSON object (python-json-logger).

No secret goes into a log line: Django never logs passwords or session keys itself, but the SQL
it logs at DEBUG (django.db.backends, when DEBUG is on) carries both (session keys, password
hashes), so settings keep that logger at INFO; and what a record says is scrubbed of password
reset tokens, which travel in URLs ("Not Found: /reset/...").
"""
import logging
import re

from ops import context

RESET_TOKEN = re.compile(r"(/reset/[^/\s]+/)[^/\s]+")


class ContextFilter(logging.Filter):
    def filter(self, record):
        record.game_id = context.game_id.get()
        record.user_id = context.user_id.get()
        if isinstance(record.msg, str) and "/reset/" in record.getMessage():
            record.msg, record.args = RESET_TOKEN.sub(r"\1[hidden]", record.getMessage()), None
        return True


def settings_logging(log_format, level):
    """Django's LOGGING for settings.py."""
    if log_format == "json":
        formatter = {
            "()": "pythonjsonlogger.json.JsonFormatter",
            "fmt": "%(asctime)s %(levelname)s %(name)s %(process)d %(game_id)s %(user_id)s "
                   "%(message)s",
            "rename_fields": {"asctime": "time", "levelname": "level", "name": "logger",
                              "process": "pid"},
        }
    else:
        formatter = {"format": "%(asctime)s %(levelname)s %(name)s [pid %(process)d game "
                               "%(game_id)s user %(user_id)s] %(message)s"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"context": {"()": "ops.logs.ContextFilter"}},
        "formatters": {"line": formatter},
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "line",
                                 "filters": ["context"]}},
        "root": {"handlers": ["console"], "level": level},
        # Its DEBUG lines are SQL with parameters: session keys, password hashes.
        "loggers": {"django.db.backends": {"level": "INFO"}},
    }
