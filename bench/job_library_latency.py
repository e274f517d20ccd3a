"""Issue 25's question for a kept job library: how long from a job's submission to its worker
starting it, over Redis, at a steady rate. Prints p50/p99/max in ms for Dramatiq, Huey and RQ,
and for a bare LPUSH/BRPOP pair (the mechanism of jobs/broker.py: a wake token BRPOPed by an idle
worker) as the floor.

The libraries are NOT dependencies of Tessera: run this from a virtual environment of its own,
    python3.11 -m venv /tmp/jobs-eval && /tmp/jobs-eval/bin/pip install "dramatiq[redis]==2.2.1" \\
        huey==3.5.4 rq==2.12.0
    nice -n 10 /tmp/jobs-eval/bin/python bench/job_library_latency.py --redis redis://127.0.0.1:6379/8
Each library gets one worker process (one thread), a trivial job (it records when it started)
and the same submissions: --jobs at --rate per second. Times are wall-clock time.time() of
two processes on one machine. Keys go under a prefix of its own, deleted afterwards.
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

def dramatiq_setup():
    import dramatiq
    from dramatiq.brokers.redis import RedisBroker

    broker = RedisBroker(url=os.environ["EVAL_REDIS"], namespace=os.environ["EVAL_PREFIX"])
    dramatiq.set_broker(broker)

    @dramatiq.actor(max_retries=0)
    def job(submitted):
        started(submitted)
    return job


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
dramatiq_job = dramatiq_setup() if os.environ.get("EVAL_LIBRARY") == "dramatiq" else None
huey_app, huey_job = huey_setup() if os.environ.get("EVAL_LIBRARY") == "huey" else (None, None)


def worker_command(library):
    here = os.path.splitext(os.path.basename(__file__))[0]
    if library == "dramatiq":
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
    raise ValueError(library)


def submit(library, submitted):
    if library == "dramatiq":
        dramatiq_job.send(submitted)
    elif library == "huey":
        huey_job(submitted)
    elif library in ("rq", "rq-simple"):
        rq_queue().enqueue(f"{os.path.splitext(os.path.basename(__file__))[0]}.started",
                           submitted)
    elif library == "brpop":
        client().lpush(os.environ["EVAL_PREFIX"] + ":wake", str(submitted))


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
        if library == "dramatiq":
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/8")
    parser.add_argument("--jobs", type=int, default=300)
    parser.add_argument("--rate", type=float, default=50)
    parser.add_argument("--libraries", default="brpop,dramatiq,huey,rq-simple,rq")
    parser.add_argument("--brpop-worker", action="store_true")
    args = parser.parse_args()
    if args.brpop_worker:
        return brpop_worker()
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
