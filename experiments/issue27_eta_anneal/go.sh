#!/usr/bin/env bash
# This screen (issue 27): reg_c with R-NaD's eta annealed, 0.1 -> 0.02 (reg_c's) linearly
# over the first 2,000 updates (learner.eta_decay_updates, eta_final 0.2), seeds 0 and 1
# at 2,500 updates, then 600 greedy and 600 sampling games each vs maxdamage on the 238
# shared Reg C teams. Why: the issue names eta annealed as a candidate; eta 0.1 kept
# Protect and switching alive for a few thousand updates (issue27_eta01k_60min) and 0.02
# sharpens the fixed point: a wide start, a sharp end.
cd "$(dirname "$0")/../.."
experiments/issue27_screen/two_seeds.sh "${OUT:-/work/runs/etadecay}" etadecay \
  'learner.rnad.eta=0.1 learner.eta_final=0.2 learner.eta_decay_updates=2000'
