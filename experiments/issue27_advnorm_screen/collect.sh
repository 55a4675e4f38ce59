#!/usr/bin/env bash
# Copies go.sh's figures here (battle JSONs, summaries, resolved configs) and prints the
# pooled cells (experiments/issue27_screen/pool.py), with the base's from
# experiments/issue27_owntera_screen (its `base` arm: reg_c of the same training code).
set -eu
cd "$(dirname "$0")/../.."
E=experiments/issue27_advnorm_screen
B=experiments/issue27_owntera_screen
for s in 0 1 2; do
  d=runs/screen_advnorm_s$s/advnorm
  [ -d $d ] || continue
  for f in $d/battle_maxdamage_*.json; do cp "$f" $E/advnorm_s${s}_$(basename "$f"); done
  cp $d/summary.json $E/advnorm_s${s}_summary.json
  cp $d/.hydra/config.yaml $E/config_advnorm_s${s}.yaml 2>/dev/null || true
done
for m in greedy sampling; do
  for s in 0 1 2; do
    ls $E/advnorm_s${s}_battle_maxdamage_${m}*.json >/dev/null 2>&1 || continue
    echo -n "advnorm s$s $m: "; .venv/bin/python experiments/issue27_screen/pool.py $E/advnorm_s${s}_battle_maxdamage_${m}*.json | tail -1
    echo -n "base    s$s $m: "; .venv/bin/python experiments/issue27_screen/pool.py $B/base_s${s}_battle_maxdamage_${m}*.json | tail -1
  done
  echo -n "advnorm pooled $m: "; .venv/bin/python experiments/issue27_screen/pool.py $E/advnorm_s*_battle_maxdamage_${m}*.json | tail -1
done
