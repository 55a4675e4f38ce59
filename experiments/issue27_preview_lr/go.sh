#!/usr/bin/env bash
# This screen: reg_c with learner.preview_lr_scale=10, seeds 0 and 1 at 2,500 updates, then
# 600 greedy and 600 sampling games each vs maxdamage on the 238 shared Reg C teams.
cd "$(dirname "$0")/../.."
experiments/issue27_screen/two_seeds.sh "${OUT:-/work/runs/preview_lr}" plr10 'learner.preview_lr_scale=10'
