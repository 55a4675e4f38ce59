#!/usr/bin/env bash
# Issue 27: our own tera types read (model.own_tera, encoder version 6, now the default for new
# networks) against the same run without them (model.own_tera=false: what every network
# learnt on before), side by side per seed, 2,500 learner updates each, seeds 0, 1, 2 one
# after the other; then 600 greedy + 600 sampling games each vs maxdamage on the 238 shared
# Reg C teams (tools.battle seeds 0-2). Run from the repository root; collect.sh copies the
# figures here.
set -u
for s in 0 1 2; do
  d=runs/screen_tera; [ "$s" != 0 ] && d=runs/screen_tera_s$s
  experiments/issue27_screen/run.sh $d 2500 $s base='model.own_tera=false' tera=''
  for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh $d/base $d/tera; done
done
