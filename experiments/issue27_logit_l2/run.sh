#!/usr/bin/env bash
# Issue 27: does a penalty on the legal logits' variance (learner.rnad.logit_l2) keep
# Protect, switching and status moves within reach and lift the best response to
# maxdamage past ~0.7? The base is experiments/exploit_maxdamage (0.695 at 2,500 updates,
# the same command without the setting). One probe per value, one after the other, alone
# on the box; run from the repository root: bash experiments/issue27_logit_l2/run.sh [VALUES...]
set -euo pipefail
OUT=runs/issue27_logit_l2
mkdir -p "$OUT"
for l2 in "${@:-1e-4 1e-3}"; do
  for v in $l2; do
    .venv/bin/python -m tools.exploit maxdamage --minutes 120 --updates 2500 \
      --teams ../shared/teams/gen9vgc2023regc --out "$OUT/l2_$v" learner.rnad.logit_l2="$v" \
      > "$OUT/l2_$v.json" 2> "$OUT/l2_$v.log"
  done
done
