#!/usr/bin/env bash
# Issue 27: PPO's dual clip (learner.rnad.ppo_dual_clip=3: where A < 0 the term is bounded
# below by 3A, Ye et al. 2020) on today's reg_c, the last knob named in the notes and never
# screened alone. Two seeds side by side, 2,500 updates each, then 600 greedy + 600
# sampling games each vs maxdamage on the 238 shared Reg C teams (tools.battle seeds 0-2),
# the cells of experiments/issue27_soft_targets' base. Run from the repository root.
set -u
experiments/issue27_screen/run.sh runs/dualclip 2500 0 dual3_s0='learner.rnad.ppo_dual_clip=3' &
experiments/issue27_screen/run.sh runs/dualclip 2500 1 dual3_s1='learner.rnad.ppo_dual_clip=3' &
wait
for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh runs/dualclip/dual3_s0 runs/dualclip/dual3_s1; done
