#!/usr/bin/env bash
# This screen (issue 31 item 5, the learner's CPU): reg_c with a narrower network
# (model.mon_dim 64, torso_dim 192, core_dim 192 from 96 / 256 / 256: ~0.64x the
# parameters, ~0.73x the learner's CPU an update on the bench), seeds 0 and 1 at 2,500
# updates, then 600 greedy and 600 sampling games each vs maxdamage on the 238 shared
# Reg C teams. The reference is today's reg_c at 2,500 updates (issue31_online_value).
cd "$(dirname "$0")/../.."
experiments/issue27_screen/two_seeds.sh "${OUT:-/work/runs/narrow}" narrow \
    'model.mon_dim=64 model.torso_dim=192 model.core_dim=192'
