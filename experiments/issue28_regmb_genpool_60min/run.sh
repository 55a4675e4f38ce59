#!/usr/bin/env bash
# Issue 28: a whole reg_mb hour with 300 generated Champions teams added to its 12
# (showdown.generated_teams=300; the screen at 2,600 updates read +0.02, inside the
# intervals: experiments/issue28_genpool_screen), 60 minutes from scratch, alone on the box.
# Its evaluation: R=outputs/issue28_regmb_genpool_60min E=experiments/issue28_regmb_genpool_60min experiments/issue28_regmb_1202/eval.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/python -m league.run experiment=reg_mb showdown.generated_teams=300 \
    hydra.run.dir=outputs/issue28_regmb_genpool_60min run.console=plain > experiments/issue28_regmb_genpool_60min/console.log 2>&1
