#!/usr/bin/env bash
# This screen: reg_c with the auxiliary HP-change head (model.aux_hp=true, its loss at
# learner.aux_hp_coef 10), seeds 0 and 1 at 2,500 updates, then 600 greedy and 600
# sampling games each vs maxdamage on the 238 shared Reg C teams.
cd "$(dirname "$0")/../.."
experiments/issue27_screen/two_seeds.sh "${OUT:-/work/runs/auxhp}" auxhp 'model.aux_hp=true'
