"""Issue 25's question for a kept job library: how long from a job's submission to its worker
starting it, over Redis, at a steady rate. Prints p50/p99/max in ms for Dramatiq, Huey and RQ,
and for a bare LPUSH/BRPOP pair (the mechanism of jobs/broker.py: a wake token BRPOPed by an idle
worker) as the floor.

The libraries are NOT dependencies of Tessera: run this from a virtual environment of its own,
    python3.11 -m venv /tmp/jobs-eval && /tmp/jobs-eval/bin/pip install "dramatiq[redis]==2.2.1" \\
        huey==3.5.4 rq==2.12.0
    nice -n 10 /tmp/jobs-eval/bin/python bench/job_library_latency.py --redis redis://127.0.0.1:6379/8
Each library gets one worker process (one thread), a trivial job (it records when it started)
and the same submissions: --jobs at --rate per second. `dramatiq-wake` is Dramatiq with a
consumer of ours that waits on a wake-up token where the library polls. `--killed MS` instead
kills a Dramatiq worker in the middle of a job and says whether the library gave the job to
the next worker (MS: the heartbeat time-out). `tessera` is Tessera's own at-scale broker
(site/jobs/broker.py: Dramatiq with the owners' lines, the wake token and the beat), its
worker set up as `manage.py jobs_worker` sets it (one thread, prefetch one), without Django's
full set-up. Times are wall-clock time.time() of two processes on one machine. Keys go under a prefix of its own, deleted afterwards.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time
import uuid

import redis

PREFIX = f"jobs-eval-{uuid.uuid4().hex[:8]}"


_clients = {}


def client():
    """One connection per process, made before the measured jobs (not inside them)."""
    if "redis" not in _clients:
        _clients["redis"] = redis.Redis.from_url(os.environ["EVAL_REDIS"])
    return _clients["redis"]


def started(submitted):
    """The job: when it started, beside when it was submitted."""
    now = time.time()
    client().rpush(starts_key(), f"{submitted} {now}")


def starts_key():
    return os.environ["EVAL_PREFIX"] + ":starts"


# -- each library: its job, how its worker starts, how to submit ---------------------------------

def waking_broker_class():
    """Dramatiq's Redis broker whose idle consumer, instead of sleeping its growing back-off,
    BRPOPs a wake-up list (a token pushed after each send) for as long: a job sent to an idle
    worker starts at once, as with our own queue, and the library's acks and redelivery of a
    dead worker's messages stay as they are. (`dramatiq-wake` below; a prototype for
    jobs/broker.py.)"""
    from dramatiq.brokers.redis import RedisBroker, _RedisConsumer

    class WakingConsumer(_RedisConsumer):
        def __init__(self, broker, queue_name, prefetch, timeout):
            # The library sleeps its back-off (capped at `timeout`) after a look that found
            # nothing: capped at 1 ms it rounds to none, and the wait is the BRPOP below.
            super().__init__(broker, queue_name, prefetch, 1)
            self.idle = timeout / 1000

        def __next__(self):
            if self.misses and not self.message_cache and \
                    self.outstanding_message_count < self.prefetch:
                # The last look found nothing: wait for a token (a send) or the idle time,
                # then look again (a token pushed meanwhile is still in the list).
                self.broker.client.brpop([wake_key()], timeout=self.idle)
            return super().__next__()

    class WakingRedisBroker(RedisBroker):
        def consume(self, queue_name, prefetch=1, timeout=5000):
            if queue_name.endswith(".DQ"):
                # The delayed messages' queue (unused here) polls as the library does: a
                # token is for the queue that was sent to.
                return super().consume(queue_name, prefetch, timeout)
            return WakingConsumer(self, queue_name, prefetch, timeout)

    return WakingRedisBroker


def wake_key():
    return os.environ["EVAL_PREFIX"] + ":wake"


def dramatiq_setup():
    import dramatiq
    from dramatiq.brokers.redis import RedisBroker

    kind = waking_broker_class() if os.environ.get("EVAL_LIBRARY") == "dramatiq-wake" \
        else RedisBroker
    # --killed: a dead worker's heartbeat is missed after EVAL_HEARTBEAT ms, and every
    # command of a live one may run the maintenance that requeues the dead one's messages.
    broker = kind(url=os.environ["EVAL_REDIS"], namespace=os.environ["EVAL_PREFIX"],
                  heartbeat_timeout=int(os.environ.get("EVAL_HEARTBEAT", 60000)),
                  maintenance_chance=int(os.environ.get("EVAL_MAINTENANCE", 1000)))
    dramatiq.set_broker(broker)

    @dramatiq.actor(max_retries=0)
    def job(submitted):
        started(submitted)

    @dramatiq.actor(max_retries=0)
    def slow_job(submitted):
        # --killed: a job long enough to kill its worker in the middle of it.
        started(submitted)
        time.sleep(2)
        client().rpush(starts_key() + ":finished", f"{time.time()}")

    job.slow = slow_job
    return job


def tessera_setup():
    """site/jobs/broker.py's broker, with the settings it reads, and the job as its actor."""
    import dramatiq

    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "site"))
    from django.conf import settings

    if not settings.configured:
        settings.configure(JOBS_LEASE=10.0, REDIS_URL=os.environ["EVAL_REDIS"])
    os.environ["REDIS_PREFIX"] = os.environ["EVAL_PREFIX"]
    from jobs import broker as tessera

    broker = tessera.FairRedisBroker(url=os.environ["EVAL_REDIS"],
                                     namespace=tessera.namespace())
    actor = dramatiq.Actor(started, broker=broker, actor_name="job", queue_name=tessera.QUEUE,
                           priority=0, options={})
    return broker, actor


def tessera_worker():
    import dramatiq

    broker, _ = tessera_setup()
    worker = dramatiq.Worker(broker, worker_threads=1, worker_timeout=1000)
    worker.queue_prefetch = 1  # as jobs.broker.Worker
    worker.start()
    while True:
        time.sleep(3600)


def huey_setup():
    from huey import RedisHuey

    huey = RedisHuey(os.environ["EVAL_PREFIX"], url=os.environ["EVAL_REDIS"])
    job = huey.task()(started)
    return huey, job


def rq_queue():
    from rq import Queue

    if "rq" not in _clients:
        _clients["rq"] = Queue(os.environ["EVAL_PREFIX"], connection=client())
    return _clients["rq"]


# In the worker processes (the libraries import this module by name).
dramatiq_job = dramatiq_setup() if os.environ.get("EVAL_LIBRARY", "").startswith("dramatiq") \
    else None
huey_app, huey_job = huey_setup() if os.environ.get("EVAL_LIBRARY") == "huey" else (None, None)


def worker_command(library):
    here = os.path.splitext(os.path.basename(__file__))[0]
    if library.startswith("dramatiq"):
        return [sys.executable, "-m", "dramatiq", here, "--processes", "1", "--threads", "1"]
    if library == "huey":
        return [sys.executable, "-m", "huey.bin.huey_consumer", f"{here}.huey_app", "-w", "1",
                "-k", "thread"]
    if library in ("rq", "rq-simple"):
        kind = "rq.worker.SimpleWorker" if library == "rq-simple" else "rq.worker.Worker"
        return [sys.executable, "-m", "rq.cli", "worker", "--url", os.environ["EVAL_REDIS"],
                "--worker-class", kind, "--quiet",
                os.environ["EVAL_PREFIX"]]
    if library == "brpop":
        return [sys.executable, __file__, "--brpop-worker"]
    if library == "tessera":
        return [sys.executable, __file__, "--tessera-worker"]
    raise ValueError(library)


def submit(library, submitted):
    if library == "dramatiq":
        dramatiq_job.send(submitted)
    elif library == "dramatiq-wake":
        dramatiq_job.send(submitted)
        with client().pipeline() as pipe:
            pipe.lpush(wake_key(), "1").ltrim(wake_key(), 0, 63).execute()
    elif library == "huey":
        huey_job(submitted)
    elif library in ("rq", "rq-simple"):
        rq_queue().enqueue(f"{os.path.splitext(os.path.basename(__file__))[0]}.started",
                           submitted)
    elif library == "brpop":
        client().lpush(os.environ["EVAL_PREFIX"] + ":wake", str(submitted))
    elif library == "tessera":
        if "tessera" not in _clients:
            _clients["tessera"] = tessera_setup()[1]
        _clients["tessera"].send_with_options(args=(submitted,), owner="bench")


def brpop_worker():
    r = client()
    while True:
        _, value = r.brpop(os.environ["EVAL_PREFIX"] + ":wake")
        started(float(value))


def measure(library, jobs, rate, url):
    os.environ.update(EVAL_REDIS=url, EVAL_PREFIX=f"{PREFIX}-{library}", EVAL_LIBRARY=library)
    _clients.clear()
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.abspath(__file__)))
    worker = subprocess.Popen(worker_command(library), env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL,
                              cwd=os.path.dirname(os.path.abspath(__file__)))
    r = redis.Redis.from_url(url)
    try:
        # The jobs as the worker knows them: defined in this module under its own name, not
        # __main__'s (Huey names a task by its function's module).
        global dramatiq_job, huey_app, huey_job
        import job_library_latency as named
        if library.startswith("dramatiq"):
            dramatiq_job = named.dramatiq_setup()
        if library == "huey":
            huey_app, huey_job = named.huey_setup()
        time.sleep(4)  # the worker's start (imports, connections)
        # Warm-up jobs, not counted.
        for _ in range(5):
            submit(library, time.time())
        deadline = time.time() + 30
        while r.llen(starts_key()) < 5 and time.time() < deadline:
            time.sleep(0.05)
        r.delete(starts_key())
        for i in range(jobs):
            submit(library, time.time())
            time.sleep(1 / rate)
        deadline = time.time() + 60
        while r.llen(starts_key()) < jobs and time.time() < deadline:
            time.sleep(0.05)
        pairs = [tuple(map(float, raw.split())) for raw in r.lrange(starts_key(), 0, -1)]
    finally:
        worker.terminate()
        try:
            worker.wait(10)
        except subprocess.TimeoutExpired:
            worker.kill()
        for key in r.scan_iter(f"{os.environ['EVAL_PREFIX']}*"):
            r.delete(key)
        for key in r.scan_iter(f"*{os.environ['EVAL_PREFIX']}*"):
            r.delete(key)
    waits = sorted((start - submitted) * 1000 for submitted, start in pairs)
    if not waits:
        return library, 0, None, None, None
    p99 = waits[min(len(waits) - 1, int(len(waits) * 0.99))]
    return library, len(waits), statistics.median(waits), p99, waits[-1]


def killed(url, heartbeat_ms):
    """A Dramatiq worker (dramatiq-wake) killed with SIGKILL in the middle of a 2 s job, a second
    worker started at once: does the job finish, how many times did it start, and how long
    after the kill."""
    import signal

    os.environ.update(EVAL_REDIS=url, EVAL_PREFIX=f"{PREFIX}-killed", EVAL_LIBRARY="dramatiq-wake",
                      EVAL_HEARTBEAT=str(heartbeat_ms), EVAL_MAINTENANCE="1000000")
    _clients.clear()
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.abspath(__file__)))
    here = os.path.dirname(os.path.abspath(__file__))

    def start_worker():
        return subprocess.Popen(worker_command("dramatiq-wake"), env=env, cwd=here,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)

    import job_library_latency as named
    job = named.dramatiq_setup()
    r = redis.Redis.from_url(url)
    first = start_worker()
    second = None
    try:
        time.sleep(4)
        job.slow.send(time.time())
        deadline = time.time() + 30
        while r.llen(starts_key()) < 1 and time.time() < deadline:
            time.sleep(0.02)
        time.sleep(0.5)  # in the middle of the job
        os.killpg(first.pid, signal.SIGKILL)
        first.wait()
        killed_at = time.time()
        second = start_worker()
        deadline = time.time() + 120
        while r.llen(starts_key() + ":finished") < 1 and time.time() < deadline:
            time.sleep(0.05)
        finished = [float(x) for x in r.lrange(starts_key() + ":finished", 0, -1)]
        starts = r.llen(starts_key())
    finally:
        for worker in (first, second):
            if worker is not None and worker.poll() is None:
                os.killpg(worker.pid, signal.SIGTERM)
                worker.wait(10)
        for key in r.scan_iter(f"*{os.environ['EVAL_PREFIX']}*"):
            r.delete(key)
    print(f"heartbeat time-out {heartbeat_ms} ms: job started {starts} times, finished "
          f"{len(finished)} times, "
          + (f"{finished[0] - killed_at:.1f} s after the kill" if finished else "never (120 s)"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/8")
    parser.add_argument("--jobs", type=int, default=300)
    parser.add_argument("--rate", type=float, default=50)
    parser.add_argument("--libraries", default="brpop,dramatiq,dramatiq-wake,huey,rq-simple,rq")
    parser.add_argument("--brpop-worker", action="store_true")
    parser.add_argument("--tessera-worker", action="store_true")
    parser.add_argument("--killed", type=int, metavar="MS",
                        help="instead: kill a Dramatiq worker mid-job, this heartbeat time-out")
    args = parser.parse_args()
    if args.brpop_worker:
        return brpop_worker()
    if args.tessera_worker:
        return tessera_worker()
    if args.killed:
        return killed(args.redis, args.killed)
    print(f"{args.jobs} jobs at {args.rate}/s, one worker each; submission to start, ms")
    print("| library | jobs started | p50 | p99 | max |")
    print("|---|---|---|---|---|")
    for library in args.libraries.split(","):
        name, count, p50, p99, top = measure(library, args.jobs, args.rate, args.redis)
        if p50 is None:
            print(f"| {name} | 0 | - | - | - |")
        else:
            print(f"| {name} | {count} | {p50:.2f} | {p99:.2f} | {top:.2f} |")


if __name__ == "__main__":
    main()
