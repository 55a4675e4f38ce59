#!/usr/bin/env bash
# This screen (issue 27): reg_c with R-NaD's iterations growing, pi_reg replaced at updates
# 200, 400, 800, 1,200, 2,000, 2,800 (sizes 200, 400, 800, 1,600; two of each, then 1,600
# on), not every 200; seeds 0 and 1 at 2,500 updates, then 600 greedy and 600 sampling
# games each vs maxdamage on the 238 shared Reg C teams. Why: the issue names a growing
# schedule; R-NaD improves on pi_reg only where an iteration nears its fixed point, and
# reg_c's 200-update iterations may be too short once the policy is sharp.
cd "$(dirname "$0")/../.."
experiments/issue27_screen/two_seeds.sh "${OUT:-/work/runs/schedgrow}" schedgrow \
  'learner.schedule_sizes=[200,400,800,1600] learner.schedule_repeats=[2,2,2,1]'
