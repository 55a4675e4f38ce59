#!/usr/bin/env bash
# Issue-11 sweep: one Hydra --multirun, one change per job from the reg_c defaults, the
# same seed, 25 minutes each; then every job's last checkpoint plays 200 battles per
# opponent on the 238 shared teams (greedy and sampling).
# usage: experiments/sweep_issue11/run.sh OUTDIR VARIANTS   e.g. outputs/sweep11 base,eta05,eta02
set -euo pipefail
OUT=${1:?outdir}; VARIANTS=${2:?variants}
PY=${PY:-.venv/bin/python}
TEAMS=${TEAMS:-../shared/teams/gen9vgc2023regc}
$PY -m league.run --multirun +experiment=reg_c +variant=$VARIANTS run.max_minutes=25 run.seed=0 \
    hydra.sweep.dir=$OUT 'hydra.sweep.subdir=${hydra.job.num}_${hydra.runtime.choices.variant}'
for d in $OUT/*/; do
  c=$(ls $d/checkpoints/ckpt_*.pt | sort | tail -1)
  for opp in random maxdamage; do
    for mode in greedy sampling; do
      f=$d/battle_${opp}_${mode}.json
      [ -s $f ] && continue
      flag=""; [ $mode = greedy ] && flag=--greedy
      $PY -m tools.battle --p1 checkpoint:$c --p2 $opp -n 200 --servers 2 --teams $TEAMS $flag --run-dir $d/battle_runs > $f.tmp && mv $f.tmp $f
    done
  done
done
