#!/usr/bin/env bash
# Issue 28's must-show command after reg_mb.yaml took eta 0.1 and pi_reg every 1,000
# updates: `python -m league.run experiment=reg_mb`, 60 minutes from scratch, alone on the box.
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/python -m league.run experiment=reg_mb \
    hydra.run.dir=outputs/issue28_regmb_default_1205 run.console=plain > experiments/issue28_regmb_default_1205/console.log 2>&1
