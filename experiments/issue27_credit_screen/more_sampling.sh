#!/usr/bin/env bash
# 400 more sampling games (tools.battle seeds 1 and 2) for each job of the screen, after
# experiments/issue27_screen/run.sh played seed 0's 200 greedy and 200 sampling.
#   experiments/issue27_credit_screen/more_sampling.sh RUN_DIR/JOB ...
set -u
PY=${PY:-.venv/bin/python}
T=${TEAMS:-../shared/teams/gen9vgc2023regc}
for d in "$@"; do
  c=$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))['checkpoint'])" "$d/summary.json")
  for seed in 1 2; do
    f=$d/battle_maxdamage_sampling_seed$seed.json
    [ -s "$f" ] && continue
    $PY -m tools.battle --p1 "checkpoint:$c" --p2 maxdamage -n 200 --teams "$T" --seed $seed \
        --out "$d/battle_runs_sampling_seed$seed" | tail -1 > "$f.tmp" && mv "$f.tmp" "$f"
  done
done
