#!/usr/bin/env bash
# The evaluation of the 60-minute reg_c run with learner.rnad.eta=0.1 and
# learner.schedule_sizes=[1000], alone on the box after it ended (issue 27).
# 200 games a cell on the 238 shared teams it never trained on; the 2,500-update
# checkpoint against maxdamage too (the screen's comparison, seed 1); the snapshots' round robin.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-outputs/issue27_eta01k_60min}
E=experiments/issue27_eta01k_60min
C=$(ls $R/checkpoints/ckpt_*.pt | tail -1)
T=../shared/teams/gen9vgc2023regc
PY=.venv/bin/python
echo "final checkpoint: $C"
for opp in maxdamage random "agent:regc"; do
  name=${opp#agent:}
  $PY -m tools.battle --p1 checkpoint:$C --p2 $opp -n 200 --servers 2 --teams $T --greedy > $E/battle_${name}_greedy.json
  $PY -m tools.battle --p1 checkpoint:$C --p2 $opp -n 200 --servers 2 --teams $T > $E/battle_${name}_sampling.json
done
# the final checkpoint vs maxdamage, tools.battle seeds 1 and 2 (600 games a cell with the above)
for seed in 1 2; do
  $PY -m tools.battle --p1 checkpoint:$C --p2 maxdamage -n 200 --servers 2 --teams $T --greedy --seed $seed \
      > $E/battle_maxdamage_greedy_s$seed.json
  $PY -m tools.battle --p1 checkpoint:$C --p2 maxdamage -n 200 --servers 2 --teams $T --seed $seed \
      > $E/battle_maxdamage_sampling_s$seed.json
done
C25=$R/checkpoints/ckpt_000002500.pt
for seed in 0 1 2; do
  $PY -m tools.battle --p1 checkpoint:$C25 --p2 maxdamage -n 200 --servers 2 --teams $T --greedy --seed $seed \
      > $E/u2500_maxdamage_greedy_s$seed.json
  $PY -m tools.battle --p1 checkpoint:$C25 --p2 maxdamage -n 200 --servers 2 --teams $T --seed $seed \
      > $E/u2500_maxdamage_sampling_s$seed.json
done
$PY -m tools.plot_run $R --out $E > /dev/null
# the snapshots of the main agent (league/past-*.pt), round robin, 20 battles a pair, on the shared teams
# (2026-11-29: started, then stopped for the session's time: 27 snapshots are 7,020 games)
if [ -n "${TOURNAMENT:-}" ]; then
  $PY -m tools.tournament $R -n 20 --teams $T --out $E/tournament > $E/tournament.log
fi
