#!/usr/bin/env bash
# Issue 27 item 4, regime (b) with a second seed: the default experiment (`reg_c`) for 60
# minutes from scratch, alone on the box, run.seed=1 (the default hours so far ran seed 0:
# experiments/issue27_regc_1206 at the same training code).
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/python -m league.run hydra.run.dir=${R:-outputs/regc_1207} run.console=plain run.seed=1
