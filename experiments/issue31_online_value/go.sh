#!/usr/bin/env bash
# This screen: reg_c with v-trace on the online value (learner.rnad.vtrace_net=online: no
# target-network forward in an update), seeds 0 and 1 at 2,500 updates, then 600 greedy
# and 600 sampling games each vs maxdamage on the 238 shared Reg C teams.
cd "$(dirname "$0")/../.."
experiments/issue27_screen/two_seeds.sh "${OUT:-/work/runs/online}" online 'learner.rnad.vtrace_net=online'
