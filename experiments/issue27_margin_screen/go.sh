#!/usr/bin/env bash
# Issue 27: expert iteration without the look-ahead's near-ties. Today's reg_c with a fifth
# of the main agent's move requests searched (8 candidates, 2 rolls each); a pick that is
# another action than the network's likeliest is kept as the step's target only when it
# beats the likeliest by 0.1 of one-turn material (sim.search_margin, new). Seed 0 alone on
# the box, 2,500 updates, then 600 greedy + 600 sampling games vs maxdamage on the 238
# shared Reg C teams (tools.battle seeds 0-2): the cells of the earlier screens' base.
# Run from the repository root; first: decisive.py (the labels' worth).
#
# "only" (the first try) ran the same command at 8a359a8, where the margin also dropped the
# picks that confirmed the likeliest action (only decisive disagreements were targets):
#   experiments/issue27_screen/run.sh runs/margin_s0 2500 0 margin10="$M"
set -u
M='sim.search_share=0.2 sim.search_k=8 sim.search_samples=2 sim.search_margin=0.1'
experiments/issue27_screen/run.sh runs/margin2_s0 2500 0 close10="$M"
for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh runs/margin2_s0/close10; done
