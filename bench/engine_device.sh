#!/usr/bin/env bash
# Issue 28's suspects for the top level's losses on Tripen 7x7 and Colorful hexhex 5, on a lent
# 16-core machine (a bare x86-64 Linux with python3; games/ needs no package):
#
#     bash bench/engine_device.sh            # about 8.5 minutes of wall time, 16 processes
#     bash bench/engine_device.sh --smoke    # 2 games a match at 20 simulations, 1 process each
#
# Four matches at once, each `python -m games.arena` with --jobs 4, at the levels' own budgets
# (10,000 simulations, 1.6 s CPU cap) on the default board against mcts4-old (the search of
# a6a705f), each stopped by `timeout` after PLAY_SECONDS: a game is appended to its JSON lines
# file as it ends, so the games finished by then are the match (a game cut off is not counted).
# Then the arena's --report of each: the new side's score, rate, 95% Wilson interval, its CPU
# per action and the opponent's, and how many searches the cap cut. The cap is CPU time, so 16
# busy cores slow no search. The baseline (mcts4 as it is, same machine kind) was 13 of 33 on
# Tripen, 5 of 12 on Colorful (docs/measurements.md, 13:48 UTC); the matches separate the two
# suspects: exploration 0.4 (the old constant) and the tree kept between moves.
#
# Environment: PYTHON (python3), OUT (results; else /tmp/engine-device-out), PLAY_SECONDS (495),
# JOBS (4 a match), SEED (11).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
PY=${PYTHON:-python3}
OUTDIR=${OUT:-/tmp/engine-device-out}
PLAY=${PLAY_SECONDS:-495}
JOBS=${JOBS:-4}
SEED=${SEED:-11}
GAMES=400            # more than fit: the timeout ends each match
BUDGET=()
if [ "${1:-}" = "--smoke" ]; then
  PLAY=${PLAY_SECONDS:-90}; JOBS=1; GAMES=2; BUDGET=(--simulations 20)
fi
mkdir -p "$OUTDIR"

# name|game|new player|old player
MATCHES=(
  "tripen_c04|tripen|mcts4,c=0.4|mcts4-old"
  "tripen_nokeep|tripen|mcts4-nokeep|mcts4-old"
  "tripen_nokeep_c04|tripen|mcts4-nokeep,c=0.4|mcts4-old"
  "colorful_c04|colorful|mcts4,c=0.4|mcts4-old"
)

{
  echo "engine_device: $(date -u +%FT%TZ), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
  # A copy of the engine staged outside its checkout names its commit in TREE.
  tree=$(cat TREE 2>/dev/null || { git rev-parse --short HEAD 2>/dev/null || echo '?'; })
  echo "python: $("$PY" --version 2>&1); tree: $tree"
  echo "play ${PLAY}s, ${JOBS} processes a match, seed ${SEED} ${BUDGET[*]}"
} | tee "$OUTDIR/summary.txt"

started=$(date +%s)
pids=()
for match in "${MATCHES[@]}"; do
  IFS='|' read -r name game new old <<<"$match"
  # timeout signals its process group too, so the pool's workers stop with the arena.
  timeout -k 5 "$PLAY" "$PY" -m games.arena --pair "$new:$old" --boards default \
      --games "$GAMES" --jobs "$JOBS" --seed "$SEED" "${BUDGET[@]}" \
      --results "$OUTDIR/$name.jsonl" "$game" >>"$OUTDIR/matches.log" 2>&1 &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
echo "matches stopped after $(( $(date +%s) - started )) s" | tee -a "$OUTDIR/summary.txt"

for match in "${MATCHES[@]}"; do
  IFS='|' read -r name game new old <<<"$match"
  echo "== $name: $new against $old, $game default board" | tee -a "$OUTDIR/summary.txt"
  if [ -s "$OUTDIR/$name.jsonl" ]; then
    "$PY" -m games.arena --pair "$new:$old" --boards default --games "$GAMES" --seed "$SEED" \
        "${BUDGET[@]}" --results "$OUTDIR/$name.jsonl" --report "$game" 2>&1 \
        | grep -v '^levels:' | tee -a "$OUTDIR/summary.txt"
  else
    echo "no game finished" | tee -a "$OUTDIR/summary.txt"
  fi
done
