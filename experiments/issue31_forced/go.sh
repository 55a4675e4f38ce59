#!/usr/bin/env bash
# Issue 31: turns with one legal joint order answered without the network
# (sim.answer_forced=true, reg_c's default since 7b82846). Two seeds side by side, 2,500
# updates each, then 600 greedy + 600 sampling games each vs maxdamage on the 238 shared
# Reg C teams (tools.battle seeds 0-2): the cells of experiments/issue27_soft_targets' base
# (the same seeds, the same draws, every turn through the network). Run from the
# repository root.
set -u
experiments/issue27_screen/run.sh runs/forced 2500 0 forced_s0='' &
experiments/issue27_screen/run.sh runs/forced 2500 1 forced_s1='' &
wait
for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh runs/forced/forced_s0 runs/forced/forced_s1; done
