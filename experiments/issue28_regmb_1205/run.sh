#!/usr/bin/env bash
# A fresh 60-minute `reg_mb` hour on today's defaults (the narrow network, rho-bar 1 since
# 2026-12-02's hour), alone on the box (issue 28's must-show run).
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/python -m league.run experiment=reg_mb hydra.run.dir=outputs/issue28_regmb_1205 run.console=plain \
    > experiments/issue28_regmb_1205/console.log 2>&1
