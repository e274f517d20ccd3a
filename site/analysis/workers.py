"""Where the analysis's jobs run: a stand-in for bots.jobs (site-bots) until it lands, with
the same two names. `job(kind)` registers a function; `submit(kind, payload)` runs it after
the commit on a thread of this process (the real one hands it to a worker process)."""
import importlib
import threading

from django.db import connection, transaction

JOBS = {}


def job(kind, **options):   # key=, pending=: bots.jobs's healing, not imitated here
    def register(function):
        JOBS[kind] = function
        return function
    return register


def submit(kind, payload):
    def run():
        importlib.import_module("analysis.jobs")   # registers the kinds
        try:
            JOBS[kind](payload)
        finally:
            connection.close()
    transaction.on_commit(lambda: threading.Thread(target=run, daemon=True).start())
