#!/usr/bin/env bash
# bench/scaling.py on a bare machine (x86-64 Linux, a python3 3.12, no Django, PostgreSQL or
# Redis): everything from the kit that bench/scaling_kit.sh builds in .devkit/ (ignored).
#
#     bash bench/scaling_device.sh [bench/scaling.py's options]      # as root, from the repository
#
# It unpacks the kit under $KIT_TMP (/tmp/tessera-kit), puts the Python packages on PYTHONPATH
# (for Python only: the kit's libraries go on LD_LIBRARY_PATH of PostgreSQL and Redis alone),
# starts PostgreSQL 15 as an unprivileged user (initdb refuses root; `nobody`, no account made)
# and Redis 7 on loopback, runs bench/scaling.py (results in $OUT, else /tmp/tessera-scaling-out:
# scaling.json, scaling.txt, the servers' logs with --keep) and stops both. PostgreSQL runs
# with fsync, full_page_writes and synchronous_commit off and the JIT off: a throw-away
# database, where a production one keeps them (the moves' commits cost less here than there).
#
# Environment: PYTHON (python3), PGPORT (5432), REDISPORT (6379), KIT (.devkit), KIT_TMP,
# OUT, PG_SHARED_BUFFERS (1GB), SCALING_TIMEOUT (seconds for bench/scaling.py; unset: none).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PY=${PYTHON:-python3}
KIT=${KIT:-$ROOT/.devkit}
T=${KIT_TMP:-/tmp/tessera-kit}
OUTDIR=${OUT:-/tmp/tessera-scaling-out}
PGPORT=${PGPORT:-5432}
REDISPORT=${REDISPORT:-6379}
PG_OS_USER=${PG_OS_USER:-nobody}
now() { "$PY" -c 'import time; print(f"{time.monotonic():.2f}")'; }
since() { "$PY" -c "import sys, time; print(f'{time.monotonic() - float(sys.argv[1]):.1f}')" "$1"; }
began=$(now)
for part in site.tar.xz root.tar.xz; do
  [ -f "$KIT/$part" ] || { echo "no $KIT/$part: build the kit first (bash bench/scaling_kit.sh)" >&2; exit 2; }
done

rm -rf "$T" && mkdir -p "$T/site" "$T/root" "$T/pg/sock" "$OUTDIR"
chmod 755 "$T"
t=$(now)
unpack() {   # tar's -J needs the xz program, which a minimal system may lack; Python's lzma does not
  if command -v xz >/dev/null; then tar -xJf "$1" -C "$2"
  else "$PY" -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2], filter="fully_trusted")' "$1" "$2"; fi
}
unpack "$KIT/site.tar.xz" "$T/site" & site_job=$!
unpack "$KIT/root.tar.xz" "$T/root" & root_job=$!
wait "$site_job"; wait "$root_job"
echo "kit unpacked in $(since "$t") s (the folder cleared and made in $(since "$began") s in all)"
export PYTHONPATH="$T/site"
LIBS="$T/root/usr/lib/x86_64-linux-gnu:$T/root/lib/x86_64-linux-gnu"
PGBIN="$T/root/usr/lib/postgresql/15/bin"
if [ ! -e /usr/share/zoneinfo/UTC ]; then   # PostgreSQL reads its zones there (Debian's build)
  mkdir -p /usr/share/zoneinfo && cp -rn "$T/site/tzdata/zoneinfo/." /usr/share/zoneinfo/
fi
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

as_pg() {   # a command as $PG_OS_USER, with the kit's libraries (the command's, not Python's)
  "$PY" -c 'import os, pwd, sys
p = pwd.getpwnam(sys.argv[1]); os.setgroups([]); os.setgid(p.pw_gid); os.setuid(p.pw_uid)
os.environ["LD_LIBRARY_PATH"] = sys.argv[2]
os.execvp(sys.argv[3], sys.argv[3:])' "$PG_OS_USER" "$LIBS" "$@"
}
PGPID=""; REDISPID=""
stop_services() {
  if [ -n "$PGPID" ]; then as_pg "$PGBIN/pg_ctl" -D "$T/pg/data" -m immediate stop >/dev/null 2>&1 || true; fi
  if [ -n "$REDISPID" ]; then
    kill "$REDISPID" 2>/dev/null || true
    for _ in $(seq 50); do [ -e "/proc/$REDISPID" ] || break; sleep 0.1; done
  fi
}
trap stop_services EXIT

t=$(now)
chown -R "$PG_OS_USER" "$T/pg"
as_pg "$PGBIN/initdb" -D "$T/pg/data" -U postgres --auth=trust -E UTF8 --locale=C -N >"$T/pg/initdb.log" 2>&1 \
  || { cat "$T/pg/initdb.log"; exit 1; }
as_pg "$PGBIN/pg_ctl" -D "$T/pg/data" -l "$T/pg/postgres.log" -w -t 60 -o "-c listen_addresses=127.0.0.1 \
  -p $PGPORT -k $T/pg/sock -c max_connections=1000 -c shared_buffers=${PG_SHARED_BUFFERS:-1GB} \
  -c fsync=off -c full_page_writes=off -c synchronous_commit=off -c jit=off \
  -c max_parallel_workers_per_gather=0" start >/dev/null || { cat "$T/pg/postgres.log"; exit 1; }
PGPID=$(head -1 "$T/pg/data/postmaster.pid")
echo "PostgreSQL 15 up in $(since "$t") s (initdb included), pid $PGPID, port $PGPORT"

t=$(now)
env LD_LIBRARY_PATH="$LIBS" "$T/root/usr/bin/redis-server" --bind 127.0.0.1 --port "$REDISPORT" \
  --save '' --appendonly no --daemonize yes --pidfile "$T/redis.pid" --logfile "$T/redis.log" --dir "$T"
for _ in $(seq 100); do [ -s "$T/redis.pid" ] && break; sleep 0.1; done
REDISPID=$(cat "$T/redis.pid")
echo "Redis up in $(since "$t") s, pid $REDISPID, port $REDISPORT"
echo "start-up (kit, PostgreSQL, Redis): $(since "$began") s"

cd "$ROOT"
export DATABASE_URL="postgres://postgres@127.0.0.1:$PGPORT/postgres" REDIS_URL="redis://127.0.0.1:$REDISPORT/0"
limit=()
[ -n "${SCALING_TIMEOUT:-}" ] && limit=(timeout -s TERM "$SCALING_TIMEOUT")
status=0
"${limit[@]}" "$PY" bench/scaling.py --postgres-pid "$PGPID" --redis-pid "$REDISPID" --pin-services \
  --json "$OUTDIR/scaling.json" --logs "$OUTDIR/logs" "$@" 2>&1 | tee "$OUTDIR/scaling.txt" || status=$?
cp "$T/pg/postgres.log" "$T/redis.log" "$OUTDIR/" 2>/dev/null || true
echo "all: $(since "$began") s"
exit "$status"
