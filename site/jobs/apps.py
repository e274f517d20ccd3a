from django.apps import AppConfig
from django.conf import settings


class JobsConfig(AppConfig):
    name = "jobs"
    verbose_name = "Jobs and their workers"

    def ready(self):
        from jobs import pool, runner
        from live import process

        if runner.mode() == "pool":
            # On a thread of its own, never holding up the writers. With Redis the workers
            # sweep (jobs.broker): they have the CPU to spare, the servers have not.
            process.every(settings.JOBS_SWEEP, runner.sweep, aside=True)
            process.on_start(pool.start)
            process.on_stop(pool.stop)
