"""`manage.py jobs_worker`: a worker process at scale (REDIS_URL set): a Dramatiq worker that
consumes the jobs servers send over Redis (the computer players' moves, analysis), owner by
owner, thinks at the lowest CPU priority (and on JOBS_CPUS), and stores and broadcasts the
results at normal priority through the Redis channel layer (jobs.broker.Worker: only the
threads that run the jobs' functions are lowered). A worker killed mid-job: the library
gives its job to another once its heartbeat is JOBS_LEASE seconds old. Run as many as the
machine has cores to spare; stop with SIGTERM (the job in hand is finished first)."""
import os
import signal
import socket

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from jobs import broker


class Command(BaseCommand):
    help = "Run computer players' and analysis jobs from Redis (REDIS_URL), on Dramatiq."

    def add_arguments(self, parser):
        parser.add_argument("--threads", type=int, default=1,
                            help="jobs at a time in this process (default 1: they are "
                                 "CPU-bound; run a process per spare core instead)")
        parser.add_argument("--normal-priority", action="store_true",
                            help="do not lower the thinking threads' CPU priority")

    def handle(self, *args, threads=1, normal_priority=False, **options):
        if not settings.REDIS_URL:
            raise CommandError("jobs_worker takes its jobs from Redis: set REDIS_URL (without it "
                               "the server's own worker pool runs them)")
        running = broker.Worker(threads=threads, lowered=not normal_priority)
        signal.signal(signal.SIGTERM, running.stop)
        signal.signal(signal.SIGINT, running.stop)
        if options["verbosity"] > 0:
            self.stdout.write(f"jobs worker {socket.gethostname()}:{os.getpid()} consumes "
                              f"{broker.keys().queue}, the owners in turn",
                              )
            self.stdout.flush()
        running.run()
