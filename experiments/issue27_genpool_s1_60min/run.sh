#!/usr/bin/env bash
# Issue 27: the second seed (run.seed=1) of the default hour with 300 generated teams in its
# pool (experiments/issue27_genpool_1206 was seed 0, not alone on the box: 0.624 greedy vs
# maxdamage on the 238 unseen teams, where the default hour read 0.672). In Reg M-B four of
# four seeds of generated teams read higher (experiments/issue28_regmb_genpool_s1_60min).
# 60 minutes from scratch, alone on the box; then the same evaluation as 1206's.
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/python -m league.run showdown.generated_teams=300 run.seed=1 \
    hydra.run.dir=outputs/regc_gen_s1 run.console=plain > experiments/issue27_genpool_s1_60min/console.log 2>&1
R=outputs/regc_gen_s1 E=experiments/issue27_genpool_s1_60min experiments/issue27_regc_1205/eval.sh > experiments/issue27_genpool_s1_60min/eval.log 2>&1
