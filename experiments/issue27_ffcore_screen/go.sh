#!/usr/bin/env bash
# Issue 27: a feed-forward core (model.recurrent=false: Linear + ReLU over the step's torso
# in place of the GRU), reg_c otherwise, 2,500 learner updates each: seeds 0 and 1 side by
# side, then seed 2 alone; then 600 greedy + 600 sampling games each vs maxdamage on the
# 238 shared Reg C teams (tools.battle seeds 0-2). The base is issue27_owntera_screen's
# `base` arm (the same code's reg_c, seeds 0-2, the same games). Run from the repository
# root; collect.sh copies the figures here.
set -u
for s in 0 1; do
  experiments/issue27_screen/run.sh runs/screen_ffcore_s$s 2500 $s ffcore='model.recurrent=false' &
done
wait
experiments/issue27_screen/run.sh runs/screen_ffcore_s2 2500 2 ffcore='model.recurrent=false'
for s in 0 1 2; do
  for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh runs/screen_ffcore_s$s/ffcore; done
done
