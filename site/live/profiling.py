"""Where a server process's CPU goes, for a benchmark (bench/live_load.py, issue 29): with
LIVE_PROFILE=<path> set, tessera.asgi profiles the whole process with cProfile, the event loop
and every thread started after it (the database threads), and writes the stats of all of them
together to <path> (pstats) when the process exits (Daphne's SIGTERM). py-spy, which would
sample from outside, is not installable on the benchmark hosts; cProfile costs the process
about as much again as it profiles, so read its shares, not its seconds. Off by default:
nothing of it runs unless the variable is set. Each thread is timed by its own CPU time
(time.thread_time): by the wall clock, a call that let go of the GIL (psycopg's send) counted
the time the thread then waited for it back, behind the others."""
import atexit
import cProfile
import pstats
import threading
import time

_profiles = []
_lock = threading.Lock()


def start(path):
    main = cProfile.Profile(time.thread_time)
    _profiles.append(main)

    def in_thread(*args):
        # The first event of a new thread: its own profiler from here on (enable() replaces
        # this hook for the thread).
        profile = cProfile.Profile(time.thread_time)
        with _lock:
            _profiles.append(profile)
        profile.enable()

    threading.setprofile(in_thread)
    main.enable()
    atexit.register(_write, path)


def _write(path):
    threading.setprofile(None)
    with _lock:
        profiles = list(_profiles)
    stats = None
    for profile in profiles:
        try:
            profile.create_stats()
            if not profile.stats:
                continue
            stats = pstats.Stats(profile) if stats is None else stats.add(profile) or stats
        except Exception:
            continue
    if stats is not None:
        stats.dump_stats(path)
