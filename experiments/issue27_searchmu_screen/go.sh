#!/usr/bin/env bash
# Issue 27: the look-ahead's picks played on 20 % of the main agent's move requests (as
# issue27_soft_targets' play20), stored with the network's own log-prob of the pick
# (sim.search_mu=network) and PPO's dual clip 3, so a pick the network found unlikely is
# learned at full weight. Seeds 0 and 1 side by side, 2,500 updates; then 600 greedy and
# 600 sampling games each vs maxdamage on the 238 shared Reg C teams (tools.battle seeds
# 0-2, the draws issue27_soft_targets' base and play20 were measured on). From the root.
set -u
O='sim.search_share=0.2 sim.search_play=true learner.search_coef=0 sim.search_mu=network learner.rnad.ppo_dual_clip=3'
experiments/issue27_screen/run.sh runs/searchmu 2500 0 mu_s0="$O" &
experiments/issue27_screen/run.sh runs/searchmu 2500 1 mu_s1="$O" &
wait
for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh runs/searchmu/mu_s0 runs/searchmu/mu_s1; done
