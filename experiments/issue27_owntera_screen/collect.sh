#!/usr/bin/env bash
# Copies go.sh's figures here (battle JSONs, summaries, resolved configs) and prints the
# pooled cells (experiments/issue27_screen/pool.py).
set -eu
cd "$(dirname "$0")/../.."
E=experiments/issue27_owntera_screen
for s in 0 1 2; do
  d=runs/screen_tera; [ "$s" != 0 ] && d=runs/screen_tera_s$s
  for n in base tera; do
    [ -d $d/$n ] || continue
    for f in $d/$n/battle_maxdamage_*.json; do cp "$f" $E/${n}_s${s}_$(basename "$f"); done
    cp $d/$n/summary.json $E/${n}_s${s}_summary.json
    cp $d/$n/.hydra/config.yaml $E/config_${n}_s${s}.yaml 2>/dev/null || true
  done
done
for n in base tera; do
  for m in greedy sampling; do
    echo -n "$n $m: "
    .venv/bin/python experiments/issue27_screen/pool.py $E/${n}_s*_battle_maxdamage_${m}*.json | tail -1
  done
done
