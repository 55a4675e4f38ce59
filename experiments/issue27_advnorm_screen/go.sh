#!/usr/bin/env bash
# Issue 27: PPO's advantages standardised per batch (learner.rnad.ppo_adv_norm=true), reg_c
# otherwise, seeds 0 and 1 side by side, 2,500 learner updates each; then 600 greedy + 600
# sampling games each vs maxdamage on the 238 shared Reg C teams (tools.battle seeds 0-2).
# The base is issue27_owntera_screen's `base` arm (the same code's reg_c, seeds 0-2, 1,800
# games a cell). Run from the repository root; collect.sh copies the figures here.
set -u
for s in 0 1; do
  experiments/issue27_screen/run.sh runs/screen_advnorm_s$s 2500 $s advnorm='learner.rnad.ppo_adv_norm=true' &
done
wait
for s in 0 1; do
  for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh runs/screen_advnorm_s$s/advnorm; done
done
