"""`manage.py bot_worker`: the older name of `manage.py jobs_worker` (the jobs app), kept so
that a deployment's unit files written for it still start a worker."""
from jobs.management.commands.jobs_worker import Command  # noqa: F401
