#!/usr/bin/env bash
# Issue 27: an entropy bonus from update 0 (learner.rnad.entropy_coef) against the collapse
# to a near-deterministic policy; the same best-response probe as run.sh.
set -euo pipefail
OUT=runs/issue27_entropy
mkdir -p "$OUT"
for v in "${@:-0.01}"; do
  .venv/bin/python -m tools.exploit maxdamage --minutes 120 --updates 2500 \
    --teams ../shared/teams/gen9vgc2023regc --out "$OUT/ent_$v" learner.rnad.entropy_coef="$v" \
    > "$OUT/ent_$v.json" 2> "$OUT/ent_$v.log"
done
