#!/bin/sh
# Issue 28: reg_mb with eta 0.2 and pi_reg replaced every 2,000 updates (reg_mb's: 0.1 and
# 1,000), stopped at 2,600 learner updates, where the two reg_mb hours of 2026-12-05 (seeds 0
# and 1) froze their past-0009 snapshot (experiments/issue28_genpool_screen's base). One run
# per seed, one after the other; then ./eval.sh.
cd "$(dirname "$0")/../.."
for s in ${SEEDS:-0 1}; do
  .venv/bin/python -m league.run experiment=reg_mb learner.rnad.eta=0.2 'learner.schedule_sizes=[2000]' \
    run.max_updates=2600 run.seed=$s hydra.run.dir=outputs/mbeta02_s$s run.console=plain \
    > experiments/issue28_eta02_screen/console_s$s.log 2>&1
done
