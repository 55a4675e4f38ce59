#!/usr/bin/env bash
# The evaluation of the 60-minute reg_mb run, alone on the box after it ended: the final
# checkpoint vs maxdamage and random on the 400 shared Reg M-B teams (never trained on: the
# run trained on the project's own 12), 200 games a cell; the snapshots' round robin there;
# the curves.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=outputs/issue28_regmb_60min
E=experiments/issue28_regmb_60min
C=$(ls $R/checkpoints/ckpt_*.pt | tail -1)
F=gen9championsvgc2026regmb
T=../shared/teams/$F
PY=.venv/bin/python
echo "final checkpoint: $C"
for opp in maxdamage random; do
  $PY -m tools.battle --p1 checkpoint:$C --p2 $opp -n 200 --servers 2 --format $F --teams $T --greedy > $E/battle_${opp}_greedy.json
  $PY -m tools.battle --p1 checkpoint:$C --p2 $opp -n 200 --servers 2 --format $F --teams $T > $E/battle_${opp}_sampling.json
done
# on the 12 teams it trained on, for the gap between seen and unseen teams
$PY -m tools.battle --p1 checkpoint:$C --p2 maxdamage -n 200 --servers 2 --format $F --greedy > $E/battle_maxdamage_greedy_trainteams.json
# the snapshots of the main agent (league/past-*.pt), round robin, 20 battles a pair, on the shared teams
$PY -m tools.tournament $R -n 20 --format $F --teams $T --out $E/tournament > $E/tournament.log
$PY -m tools.plot_run $R --out $E > /dev/null
