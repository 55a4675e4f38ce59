#!/usr/bin/env bash
# 400 more greedy and 200 more sampling games for the two zdrop seeds (seed 1: the H100 run's network)
set -u
while pgrep -f "issue27_screen/run.sh runs/screen_ids" >/dev/null; do sleep 5; done
PY=.venv/bin/python; T=../shared/teams/gen9vgc2023regc
C0=$(python3 -c "import json; print(json.load(open('runs/screen_ids/zdrop/summary.json'))['checkpoint'])")
C1=/work/main/runs/gpu_zdrop_s1.pt
for spec in "s0:$C0" "s1:$C1"; do
  n=${spec%%:*}; c=${spec#*:}
  $PY -m tools.battle --p1 checkpoint:$c --p2 maxdamage -n 400 --teams $T --greedy --seed 1 | tail -1 > runs/screen_ids/more_${n}_greedy.json
  $PY -m tools.battle --p1 checkpoint:$c --p2 maxdamage -n 200 --teams $T --seed 1 | tail -1 > runs/screen_ids/more_${n}_sampling.json
done
