#!/bin/bash
# issue27_decisive_clone: see README.md
set -euxo pipefail
cd /work/main
PY=.venv/bin/python; E=experiments/issue27_decisive_clone; R=runs/decisive_clone; T=../shared/teams/gen9vgc2023regc
$PY $E/teacher.py generate --p1 search:agent:regc --p2 maxdamage -n 300 --teams $T --seed 7 --out $R/heldout_logs | tail -1 > $E/generate_heldout.json
$PY -m tools.bc generate --p1 agent:regc --p2 maxdamage -n 1500 --out $R/control_logs | tail -1 > $E/generate_control.json
$PY -m tools.bc train $R/logs --out $R/clone --imitate search --init agent:regc --epochs 3 --lr 3e-4 | tail -1 > $E/train_clone.json
$PY -m tools.bc train $R/control_logs --out $R/control --imitate checkpoint --init agent:regc --epochs 3 --lr 3e-4 | tail -1 > $E/train_control.json
echo done
