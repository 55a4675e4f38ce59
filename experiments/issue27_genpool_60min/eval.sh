#!/usr/bin/env bash
# The evaluation of the 60-minute reg_c run with showdown.generated_teams=300, alone on
# the box after it ended: 200 games a cell on the 238 shared teams it never trained on
# (and on the 12 shipped teams it trained on), the head to head against agent:regc, and
# the tournament of its snapshots.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=outputs/issue27_genpool_60min
E=experiments/issue27_genpool_60min
C=$(ls $R/checkpoints/ckpt_*.pt | tail -1)
T=../shared/teams/gen9vgc2023regc
PY=.venv/bin/python
echo "final checkpoint: $C"
for opp in maxdamage random "agent:regc"; do
  name=${opp#agent:}
  $PY -m tools.battle --p1 checkpoint:$C --p2 $opp -n 200 --teams $T --greedy | tail -1 > $E/battle_${name}_greedy.json
  $PY -m tools.battle --p1 checkpoint:$C --p2 $opp -n 200 --teams $T | tail -1 > $E/battle_${name}_sampling.json
done
# on the 12 shipped teams it trained on (its pool's other 300 were generated)
$PY -m tools.battle --p1 checkpoint:$C --p2 maxdamage -n 200 --greedy | tail -1 > $E/battle_maxdamage_greedy_shipped12.json
$PY -m tools.battle --p1 checkpoint:$C --p2 maxdamage -n 200 | tail -1 > $E/battle_maxdamage_sampling_shipped12.json
# the snapshots of the main agent (league/past-*.pt), round robin, 20 battles a pair, on the shared teams
$PY -m tools.tournament $R -n 20 --teams $T --out $E/tournament > $E/tournament.log
$PY -m tools.plot_run $R --out $E > /dev/null
