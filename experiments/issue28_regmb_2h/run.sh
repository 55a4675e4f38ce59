#!/usr/bin/env bash
# Issue 28: does a second hour help? The 60-minute reg_mb run shipped as agent:regmb
# (experiments/issue28_regmb_eta01k, 12,269 updates) resumed for 60 more minutes from its
# last checkpoint, with the same settings (its overrides; sim.concurrency 24 as it ran),
# in a copy of its run directory so the original stays as it was. Alone on the box.
set -euo pipefail
cd "$(dirname "$0")/../.."
SRC=outputs/issue28_regmb_eta01k
R=${R:-outputs/issue28_regmb_2h}
[ -e "$R" ] || { cp -r "$SRC" "$R"; rm -f "$R/processes.json"; }
.venv/bin/python -m league.run experiment=reg_mb learner.rnad.eta=0.1 'learner.schedule_sizes=[1000]' run.seed=1 \
    sim.concurrency=24 run.max_minutes=60 resume=true hydra.run.dir="$R" run.console=plain
