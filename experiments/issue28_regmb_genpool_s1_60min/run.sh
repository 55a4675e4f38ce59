#!/usr/bin/env bash
# Issue 28: the second seed (run.seed=1) of the reg_mb hour with 300 generated Champions
# teams added to its 12 (experiments/issue28_regmb_genpool_60min was seed 0: 0.626 greedy
# vs maxdamage on the 400 unseen teams); 60 minutes from scratch, alone on the box. Two
# seeds are what a default needs.
# Its evaluation: R=outputs/issue28_regmb_genpool_s1_60min E=experiments/issue28_regmb_genpool_s1_60min experiments/issue28_regmb_1202/eval.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/python -m league.run experiment=reg_mb showdown.generated_teams=300 run.seed=1 \
    hydra.run.dir=outputs/issue28_regmb_genpool_s1_60min run.console=plain > experiments/issue28_regmb_genpool_s1_60min/console.log 2>&1
