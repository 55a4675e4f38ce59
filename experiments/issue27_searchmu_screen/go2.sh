#!/usr/bin/env bash
# The third seed of go.sh's screen (seed 2), alone on the box; then its 600 + 600 games.
set -u
O='sim.search_share=0.2 sim.search_play=true learner.search_coef=0 sim.search_mu=network learner.rnad.ppo_dual_clip=3'
experiments/issue27_screen/run.sh runs/searchmu 2500 2 mu_s2="$O"
for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh runs/searchmu/mu_s2; done
