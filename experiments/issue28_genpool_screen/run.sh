#!/bin/sh
# Issue 28: reg_mb with 300 generated Champions teams added to its 12 (showdown.generated_teams),
# stopped at 2,600 learner updates, where the two reg_mb hours of 2026-12-05 (seeds 0 and 1,
# the same recipe without generated teams) froze their past-0009 snapshot. One run per seed,
# alone on the box; then ./eval.sh.
cd "$(dirname "$0")/../.."
for s in ${SEEDS:-0 1}; do
  .venv/bin/python -m league.run experiment=reg_mb showdown.generated_teams=300 run.max_updates=2600 run.seed=$s \
    hydra.run.dir=outputs/mbgen_s$s run.console=plain > experiments/issue28_genpool_screen/console_s$s.log 2>&1
done
