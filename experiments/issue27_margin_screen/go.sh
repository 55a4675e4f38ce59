#!/usr/bin/env bash
# Issue 27: expert iteration learning only the look-ahead's decisive picks. Today's reg_c
# with a fifth of the main agent's move requests searched (8 candidates, 2 rolls each) and
# the pick kept as the step's target only when it beats the network's likeliest action by
# 0.1 of one-turn material (sim.search_margin, new). Two seeds one after the other (alone on
# the box), 2,500 updates each, then 600 greedy + 600 sampling games each vs maxdamage on the
# 238 shared Reg C teams (tools.battle seeds 0-2): the cells of the earlier screens' base.
# Run from the repository root; first: decisive.py (the labels' worth).
set -u
M='sim.search_share=0.2 sim.search_k=8 sim.search_samples=2 sim.search_margin=0.1'
experiments/issue27_screen/run.sh runs/margin_s0 2500 0 margin10="$M"
experiments/issue27_screen/run.sh runs/margin_s1 2500 1 margin10="$M"
for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh runs/margin_s0/margin10 runs/margin_s1/margin10; done
