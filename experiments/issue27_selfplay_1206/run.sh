#!/usr/bin/env bash
# Issue 27 item 4, regime (a) at the issue's size: self-play only (the main agent against
# its latest self, 0.67, and its past snapshots, 0.33; no exploiters, no fixed baselines in
# its training), 60 minutes from scratch, alone on the box; otherwise the default
# experiment. The same sampler weights as the regimes screen (experiments/issue27_regimes);
# regime (b) is experiments/issue27_regc_1206, regime (c) experiments/issue27_league_1206.
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/python -m league.run hydra.run.dir=${R:-outputs/selfplay_1206} run.console=plain \
  league.sampler.base.self=0.67 league.sampler.base.past=0.33 \
  league.sampler.base.exploiters=0 league.sampler.base.fixed=0
