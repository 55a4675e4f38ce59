#!/usr/bin/env bash
# The evaluation of a fresh 60-minute reg_mb hour (issue 28), alone on the box after it
# ended (R=RUN_DIR E=EXPERIMENT_DIR for another hour than 2026-12-02's): its final
# checkpoint on the 400 shared Reg M-B teams it never trained on, vs maxdamage 1,200 games
# greedy (tools.battle seeds 0-5: the seeds agent:regmb's 0.595 was measured on) and 200
# sampling, vs random 200, head to head vs the shipped agent:regmb 600 (seeds 0-2); the curves.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-outputs/issue28_regmb_1202}
E=${E:-experiments/issue28_regmb_1202}
C=$(.venv/bin/python -c "import json,sys; print(json.load(open(sys.argv[1]))['checkpoint'])" $R/summary.json)
F=gen9championsvgc2026regmb
T=../shared/teams/$F
PY=.venv/bin/python
echo "final checkpoint: $C"
for seed in 0 1 2 3 4 5; do
  $PY -m tools.battle --p1 checkpoint:$C --p2 maxdamage -n 200 --format $F --teams $T --greedy --seed $seed \
      | tail -1 > $E/maxdamage_greedy_s$seed.json
done
$PY -m tools.battle --p1 checkpoint:$C --p2 maxdamage -n 200 --format $F --teams $T | tail -1 > $E/maxdamage_sampling.json
$PY -m tools.battle --p1 checkpoint:$C --p2 random -n 200 --format $F --teams $T --greedy | tail -1 > $E/random_greedy.json
for seed in 0 1 2; do
  $PY -m tools.battle --p1 checkpoint:$C --p2 agent:regmb -n 200 --format $F --teams $T --greedy --seed $seed \
      | tail -1 > $E/vs_regmb_greedy_s$seed.json
done
$PY -m tools.plot_run $R --out $E > /dev/null
