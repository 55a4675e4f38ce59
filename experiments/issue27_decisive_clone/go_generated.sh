#!/bin/bash
# issue27_decisive_clone: see README.md
set -euxo pipefail
cd /work/main
PY=.venv/bin/python; E=experiments/issue27_decisive_clone; R=runs/decisive_clone; G=$R/gen_teams; T=../shared/teams/gen9vgc2023regc
$PY $E/teacher.py generate --p1 search:agent:regc --p2 maxdamage -n 1500 --teams $G --out $R/gen_logs | tail -1 > $E/generate_gen.json
$PY -m tools.bc generate --p1 agent:regc --p2 maxdamage -n 1500 --teams $G --out $R/gen_control_logs | tail -1 > $E/generate_gen_control.json
$PY -m tools.bc train $R/gen_logs --out $R/gen_clone --imitate search --init agent:regc --epochs 3 --lr 3e-4 | tail -1 > $E/train_gen_clone.json
$PY -m tools.bc train $R/gen_control_logs --out $R/gen_control --imitate checkpoint --init agent:regc --epochs 3 --lr 3e-4 | tail -1 > $E/train_gen_control.json
for m in gen_clone gen_control; do
  for s in 0 1 2 3; do
    $PY -m tools.battle --p1 checkpoint:$R/$m/bc.pt --p2 maxdamage --greedy -n 200 --servers 2 --out $R/battle_${m}_s$s --teams $T --open-team-sheets --seed $s 2>/dev/null | tail -1 > $E/${m}_vs_maxdamage_greedy_s$s.json
  done
  $PY experiments/issue27_screen/pool.py $E/${m}_vs_maxdamage_greedy_s*.json | tail -1
  $PY -m tools.bc eval $R/$m/bc.pt $R/heldout_logs --policies search 2>/dev/null | tail -1 > $E/eval_heldout_$m.json
  cat $E/eval_heldout_$m.json; echo
done
echo done
