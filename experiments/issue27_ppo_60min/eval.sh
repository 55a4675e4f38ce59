#!/usr/bin/env bash
# The evaluation of the 60-minute reg_c (PPO-td) run, alone on the box after it ended.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=outputs/issue27_ppo_60min
E=experiments/issue27_ppo_60min
C=$(ls $R/checkpoints/ckpt_*.pt | tail -1)
T=../shared/teams/gen9vgc2023regc
PY=.venv/bin/python
echo "final checkpoint: $C"
for opp in maxdamage random "agent:regc"; do
  name=${opp#agent:}
  $PY -m tools.battle --p1 checkpoint:$C --p2 $opp -n 200 --servers 2 --teams $T --greedy > $E/battle_${name}_greedy.json
  $PY -m tools.battle --p1 checkpoint:$C --p2 $opp -n 200 --servers 2 --teams $T > $E/battle_${name}_sampling.json
done
# the snapshots of the main agent (league/past-*.pt), round robin, 20 battles a pair, on the shared teams
$PY -m tools.tournament $R -n 20 --teams $T --out $E/tournament > $E/tournament.log
$PY -m tools.plot_run $R --out $E > /dev/null
