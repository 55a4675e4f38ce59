#!/usr/bin/env bash
# Issue 27: search targets drawn with MPO's weighting (sim.search_tau) instead of the
# look-ahead's argmax. Run from the repository root.
set -u
# seed 0, 2,500 updates, then 600 greedy + 600 sampling games vs maxdamage on the 238
# shared Reg C teams: the cells of experiments/issue27_exit_screen, with the pick drawn
experiments/issue27_screen/run.sh runs/exit_soft 2500 0 soft20_s0='sim.search_share=0.2 sim.search_tau=0.05'
for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh runs/exit_soft/soft20_s0; done
