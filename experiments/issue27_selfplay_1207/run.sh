#!/usr/bin/env bash
# Issue 27 item 4, regime (a) with a second seed: self-play only (the main agent against
# its latest self, 0.67, and its past snapshots, 0.33; no exploiters, no fixed baselines in
# its training), 60 minutes from scratch, alone on the box, run.seed=1; otherwise
# experiments/issue27_selfplay_1206/run.sh (seed 0) at today's code.
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/python -m league.run hydra.run.dir=${R:-outputs/selfplay_1207} run.console=plain run.seed=1 \
  league.sampler.base.self=0.67 league.sampler.base.past=0.33 \
  league.sampler.base.exploiters=0 league.sampler.base.fixed=0
