#!/usr/bin/env bash
# Issue 27 item 4, regime (c) at the issue's size: the full league (main exploiters, a
# league exploiter, the Nash portfolio of R-NaD references) for 60 minutes from scratch,
# alone on the box, with the regimes screen's league settings (experiments/issue27_regimes)
# and otherwise the default experiment; regime (b), the default hour of the same training
# code, is experiments/issue27_regc_1206.
set -euo pipefail
cd "$(dirname "$0")/../.."
.venv/bin/python -m league.run hydra.run.dir=${R:-outputs/league_1206} run.console=plain \
  league.exploiters.enabled=true league.exploiters.first_after=300 league.exploiters.every_updates=500 \
  league.exploiters.train_updates=300 league.exploiters.eval_games=40 \
  league.league_exploiters.enabled=true learner.portfolio.size=3 learner.portfolio.strategy=nash
