#!/usr/bin/env bash
# Issue 28 screen: ids hidden with p 0.5 instead of 0.2 while learning, on Reg M-B with the
# shipped agent:regmb's settings (eta 0.1, pi_reg every 1,000), two seeds, 2,500 updates,
# base and change side by side; then 600 greedy and 200 sampling games a job vs maxdamage
# on the 400 shared Reg M-B teams (none trained on).
#   experiments/issue28_iddrop_screen/go.sh OUTDIR
set -u
OUT=${1:?outdir}
export EXP=reg_mb FORMAT=gen9championsvgc2026regmb
BASE="learner.rnad.eta=0.1 learner.schedule_sizes=[1000]"
for s in 0 1; do
  experiments/issue27_screen/run.sh "$OUT" 2500 $s base_s$s="$BASE" drop5_s$s="$BASE learner.id_dropout=0.5"
done
for s in 0 1; do
  experiments/issue27_credit_screen/more_games.sh "$OUT/base_s$s" "$OUT/drop5_s$s"
done
