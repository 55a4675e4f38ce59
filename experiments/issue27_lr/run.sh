#!/usr/bin/env bash
# Issue 27: is the best response's plateau at ~0.7 against maxdamage the learning rate's?
# learner.lr (default 3e-4) was never varied. The base is experiments/exploit_maxdamage
# (0.695 greedy at 2,500 updates, the same command without the setting). One probe per
# value, one after the other, alone on the box; run from the repository root:
#   bash experiments/issue27_lr/run.sh [VALUES...]      (default: 1e-3 1e-4)
set -euo pipefail
OUT=runs/issue27_lr
mkdir -p "$OUT"
for v in ${@:-1e-3 1e-4}; do
  .venv/bin/python -m tools.exploit maxdamage --minutes 120 --updates 2500 \
    --teams ../shared/teams/gen9vgc2023regc --out "$OUT/lr_$v" learner.lr="$v" \
    > "$OUT/lr_$v.json" 2> "$OUT/lr_$v.log"
done
