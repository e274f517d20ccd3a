"""`manage.py jobs_worker`: a worker process at scale (REDIS_URL set): takes the jobs servers
queue in Redis (the computer players' moves, analysis), runs them at the lowest CPU priority,
stores and broadcasts their results through the Redis channel layer, and sweeps for jobs lost
with a killed worker. Run as many as the machine has cores to spare; stop with SIGTERM (the
job in hand is finished first)."""
import os
import signal
import socket

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from jobs import broker, worker


class Command(BaseCommand):
    help = "Run computer players' and analysis jobs from the Redis queue (REDIS_URL)."

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true",
                            help="stop after one job (for tests and checks)")
        parser.add_argument("--normal-priority", action="store_true",
                            help="do not lower this process's CPU priority")

    def handle(self, *args, once=False, normal_priority=False, **options):
        if not settings.REDIS_URL:
            raise CommandError("jobs_worker takes its jobs from Redis: set REDIS_URL (without it "
                               "the server's own worker pool runs them)")
        if not normal_priority:
            worker.lower_priority()
        name = f"{socket.gethostname()}:{os.getpid()}"
        running = broker.Worker(name)
        signal.signal(signal.SIGTERM, running.stop)
        signal.signal(signal.SIGINT, running.stop)
        if options["verbosity"] > 0:
            self.stdout.write(f"jobs worker {name} takes jobs from {broker.ring_key()}, the "
                              f"owners in turn")
        running.run(once=once)
