#!/usr/bin/env bash
# The evaluation of the 60-minute reg_c (zdrop default) run, alone on the box after it ended.
# agent:regc below was, when this ran, the agent shipped before this run: today it is
# tests/data/agent_regc_v1.pt (agent:regc is now this run's final checkpoint)
set -euo pipefail
cd "$(dirname "$0")/../.."
R=outputs/issue27_zdrop_60min
E=experiments/issue27_zdrop_60min
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
