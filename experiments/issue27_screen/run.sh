#!/usr/bin/env bash
# Issue-27 screen: one change per job from today's reg_c, all stopped at the same number
# of learner updates (run.max_updates), the same seed, the jobs run side by side (equal
# updates, not equal time: the box's speed does not enter the comparison). Then each
# job's final checkpoint plays 200 battles vs maxdamage on the 238 shared teams it never
# trained on, greedy and sampling.
# usage: experiments/issue27_screen/run.sh OUTDIR UPDATES SEED NAME='overrides' ...
#   e.g. experiments/issue27_screen/run.sh runs/screen 3000 0 base='' b1='learner.adam_b1=0.9'
set -uo pipefail
OUT=${1:?outdir}; UPDATES=${2:?updates}; SEED=${3:?seed}; shift 3
PY=${PY:-.venv/bin/python}
EXP=${EXP:-reg_c}                                # e.g. EXP=reg_mb FORMAT=gen9championsvgc2026regmb
FORMAT=${FORMAT:-gen9vgc2023regc}
TEAMS=${TEAMS:-../shared/teams/$FORMAT}
mkdir -p "$OUT"
pids=()
for job in "$@"; do
  name=${job%%=*}; over=${job#*=}
  # shellcheck disable=SC2086
  $PY -m league.run experiment=$EXP run.max_updates=$UPDATES run.max_minutes=600 run.seed=$SEED \
      hydra.run.dir="$OUT/$name" $over > "$OUT/$name.console.log" 2>&1 &
  pids+=($!)
done
wait "${pids[@]}"
for job in "$@"; do
  name=${job%%=*}; d=$OUT/$name
  c=$(python3 -c "import json,sys; print(json.load(open('$d/summary.json'))['checkpoint'])")
  for mode in greedy sampling; do
    f=$d/battle_maxdamage_${mode}.json
    [ -s "$f" ] && continue
    flag=""; [ $mode = greedy ] && flag=--greedy
    $PY -m tools.battle --p1 "checkpoint:$c" --p2 maxdamage -n 200 --teams "$TEAMS" --format "$FORMAT" $flag --out "$d/battle_runs_$mode" \
        | tail -1 > "$f.tmp" && mv "$f.tmp" "$f"
  done
done
