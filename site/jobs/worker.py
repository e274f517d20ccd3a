"""What runs inside a worker process: a pool worker of the embedded default (jobs.pool) or a
`manage.py jobs_worker` process (jobs.broker). Both think at the lowest CPU priority the system
grants, so that a busy worker never takes the CPU from a server's event loop."""
import logging
import os
import threading
import time

logger = logging.getLogger(__name__)


def lower_priority():
    """SCHED_IDLE where Linux offers it (the calling thread runs only on CPU time nobody else
    wants), else the highest niceness; and the CPUs of JOBS_CPUS (alias BOT_CPUS; e.g. "1" or
    "2,3"), if set, so that an operator can keep the thinking off the servers' cores. Linux
    sets all three per thread, and threads started later inherit them: a pool worker lowers
    its main thread, which thinks, before Django is set up (read from the environment); a
    jobs_worker only its thinker threads (jobs.broker.Worker)."""
    cpus = (os.environ.get("JOBS_CPUS", "").strip() or os.environ.get("BOT_CPUS", "").strip())
    if cpus:
        try:
            os.sched_setaffinity(0, {int(cpu) for cpu in cpus.split(",")})
        except (AttributeError, OSError, ValueError):
            logger.warning("could not keep the bot workers to the CPUs %s", cpus)
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        return "idle"
    except (AttributeError, OSError):
        pass
    try:
        os.nice(19 - os.nice(0))
    except OSError:
        pass
    return "nice"


def start_in_pool():
    """The pool worker's initializer: spawned, so it sets Django up itself (the environment
    and sys.path come from the server process). A pool worker does not outlive its server:
    when the server dies, the worker reads the end of its job pipe and exits (after the job in
    hand). No PR_SET_PDEATHSIG: it fires when the *thread* that spawned the worker ends.
    The job pipe does not always end with a killed server (the tests' servers left orphaned
    workers behind, idle for ever): a watcher also ends the worker once its parent is gone.
    The watcher starts before the worker lowers itself: Linux keeps a scheduling policy per
    thread, and a watcher at SCHED_IDLE got no CPU on a busy machine to notice that end."""
    threading.Thread(target=_end_with, args=(os.getppid(),), name="end-with-server",
                     daemon=True).start()
    lower_priority()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tessera.settings")
    import django

    django.setup()
    from jobs import runner

    runner.discover()


def _end_with(server_pid, every=1.0):
    """Exit as soon as the process that started this worker is no longer its parent (it
    died: the worker was handed to init)."""
    while True:
        time.sleep(every)
        if os.getppid() != server_pid:
            os._exit(0)


def perform(kind_name, payload):
    """Run one job here; its result goes back to whoever concludes it."""
    from django.db import connections

    from jobs import runner

    try:
        return runner.perform(kind_name, payload)
    finally:
        # A worker lives long: a connection that broke or aged is dropped, as after a request.
        for connection in connections.all(initialized_only=True):
            connection.close_if_unusable_or_obsolete()


def ready():
    """A no-op: submitted once per worker when the pool starts, so that each worker is
    spawned (and sets Django up) with the server, not on the first job."""
    return os.getpid()
