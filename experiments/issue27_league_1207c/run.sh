#!/usr/bin/env bash
# Issue 27 item 4, regime (c) with a second seed: the full league for 60 minutes from
# scratch, alone on the box, with experiments/issue27_league_1207b's settings and code
# (both sparse-table fixes, no one-team portfolio reference, the Hold), run.seed=1
# (every earlier hour ran seed 0).
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/python -m league.run hydra.run.dir=${R:-outputs/league_1207c} run.console=plain run.seed=1 \
  league.exploiters.enabled=true league.exploiters.first_after=300 league.exploiters.every_updates=500 \
  league.exploiters.train_updates=300 league.exploiters.eval_games=40 \
  league.league_exploiters.enabled=true learner.portfolio.size=3 learner.portfolio.strategy=nash
