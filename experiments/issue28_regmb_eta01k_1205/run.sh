#!/usr/bin/env bash
# The shipped agent:regmb's recipe (eta 0.1, pi_reg every 1,000 updates, run.seed=1:
# experiments/issue28_regmb_eta01k) on today's defaults (the narrow network, rho-bar 1),
# 60 minutes from scratch, alone on the box (issue 28).
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/python -m league.run experiment=reg_mb learner.rnad.eta=0.1 'learner.schedule_sizes=[1000]' run.seed=1 \
    hydra.run.dir=outputs/issue28_regmb_eta01k_1205 run.console=plain > experiments/issue28_regmb_eta01k_1205/console.log 2>&1
