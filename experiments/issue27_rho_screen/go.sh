#!/usr/bin/env bash
# This screen (issue 27): reg_c with v-trace's importance weights clipped at 1
# (learner.rnad.rho_vtrace=1, IMPALA's rho-bar; reg_c keeps the reference's inf), seeds 0
# and 1 at 2,500 updates, then 600 greedy and 600 sampling games each vs maxdamage on the
# 238 shared Reg C teams. Why: with rho-bar inf a batch now and then gets v-trace targets
# of mean +-4-5 (pi/mu of a rarely sampled action that the policy has since made likely),
# value losses of 500-1,200 and a clipped update (experiments/issue28_regmb_1202).
cd "$(dirname "$0")/../.."
experiments/issue27_screen/two_seeds.sh "${OUT:-/work/runs/rho1}" rho1 'learner.rnad.rho_vtrace=1.0'
