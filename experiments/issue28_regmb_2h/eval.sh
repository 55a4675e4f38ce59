#!/usr/bin/env bash
# The evaluation of the two-hour checkpoint (run.sh), alone on the box: on the 400 shared
# Reg M-B teams it never trained on, vs maxdamage greedy 1,200 games (tools.battle seeds
# 0-5, the seeds agent:regmb was measured with), head to head vs the one-hour checkpoint
# it resumed from (the shipped agent:regmb's weights) 600 games (seeds 0-2), sampling and
# random 200 each; the curves of both hours.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-outputs/issue28_regmb_2h}
E=experiments/issue28_regmb_2h
C=$(ls $R/checkpoints/ckpt_*.pt | tail -1)
ONE=outputs/issue28_regmb_eta01k/checkpoints/ckpt_000012269.pt
F=gen9championsvgc2026regmb
T=../shared/teams/$F
PY=.venv/bin/python
echo "final checkpoint: $C"
for seed in 0 1 2 3 4 5; do
  $PY -m tools.battle --p1 checkpoint:$C --p2 maxdamage -n 200 --servers 2 --format $F --teams $T --greedy --seed $seed \
      | tail -1 > $E/maxdamage_greedy_s$seed.json
done
for seed in 0 1 2; do
  $PY -m tools.battle --p1 checkpoint:$C --p2 checkpoint:$ONE -n 200 --servers 2 --format $F --teams $T --greedy --seed $seed \
      | tail -1 > $E/vs_one_hour_greedy_s$seed.json
done
$PY -m tools.battle --p1 checkpoint:$C --p2 maxdamage -n 200 --servers 2 --format $F --teams $T | tail -1 > $E/maxdamage_sampling.json
$PY -m tools.battle --p1 checkpoint:$C --p2 random -n 200 --servers 2 --format $F --teams $T --greedy | tail -1 > $E/random_greedy.json
$PY -m tools.plot_run $R --out $E > /dev/null
