#!/usr/bin/env bash
# 400 more games vs maxdamage (tools.battle seeds 1 and 2) for each job of the screen,
# after experiments/issue27_screen/run.sh played seed 0's 200 greedy and 200 sampling.
# Greedy by default; MODE=sampling for the sampling policy (more_sampling.sh).
#   experiments/issue27_credit_screen/more_games.sh RUN_DIR/JOB ...
set -u
PY=${PY:-.venv/bin/python}
FORMAT=${FORMAT:-gen9vgc2023regc}                 # e.g. FORMAT=gen9championsvgc2026regmb
T=${TEAMS:-../shared/teams/$FORMAT}
MODE=${MODE:-greedy}
flag=""; [ "$MODE" = greedy ] && flag=--greedy
for d in "$@"; do
  c=$($PY -c "import json,sys; print(json.load(open(sys.argv[1]))['checkpoint'])" "$d/summary.json")
  for seed in 1 2; do
    f=$d/battle_maxdamage_${MODE}_seed$seed.json
    [ -s "$f" ] && continue
    # shellcheck disable=SC2086
    $PY -m tools.battle --p1 "checkpoint:$c" --p2 maxdamage -n 200 --teams "$T" --format "$FORMAT" $flag --seed $seed \
        --out "$d/battle_runs_${MODE}_seed$seed" | tail -1 > "$f.tmp" && mv "$f.tmp" "$f"
  done
done
