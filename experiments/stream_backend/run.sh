#!/usr/bin/env bash
# Issue 13: the backends measured on one box, then 60 minutes of reg_c on the stream backend
# and its final checkpoint on the 238 shared teams (200 games per cell, greedy and sampling).
# usage: experiments/stream_backend/run.sh OUTDIR      (nothing else heavy beside it)
set -euo pipefail
OUT=${1:?outdir}; mkdir -p "$OUT"
PY=${PY:-.venv/bin/python}
TEAMS=${TEAMS:-../shared/teams/gen9vgc2023regc}
HERE=$(dirname "$0")
if [ ! -s "$HERE/bench_backends.json" ]; then
  $PY -m tools.bench backends --seconds 60 --train-seconds 90 > "$OUT/bench.out"
  tail -1 "$OUT/bench.out" > "$HERE/bench_backends.json"
fi
$PY -m league.run +experiment=reg_c sim.backend=stream hydra.run.dir="$OUT/run" > "$OUT/run.out" 2> "$OUT/run.err"
tail -1 "$OUT/run.out" > "$HERE/run_summary.json"
c=$(ls "$OUT"/run/checkpoints/ckpt_*.pt | sort | tail -1)
for opp in maxdamage random; do
  for mode in greedy sampling; do
    flag=""; [ $mode = greedy ] && flag=--greedy
    $PY -m tools.battle --p1 checkpoint:$c --p2 $opp -n 200 --servers 2 --teams $TEAMS $flag \
      --run-dir "$OUT/battle_runs" | tail -1 > "$HERE/battle_${opp}_${mode}.json"
  done
done
