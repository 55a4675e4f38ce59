#!/bin/sh
# bash experiments/issue27_preview_ablation/run.sh OUT SPEC [SEEDS] [TEAMS] [FORMAT]
# SPEC greedy vs maxdamage, 200 games a seed, p1's preview replaced (ablate.py)
OUT=$1; SPEC=$2; SEEDS=${3:-"0 1 2"}; TEAMS=${4:-../shared/teams/gen9vgc2023regc}; FMT=${5:-gen9vgc2023regc}
mkdir -p "$OUT"
for s in $SEEDS; do
  for k in net random maxdamage heuristic; do
    PREVIEW=$k .venv/bin/python experiments/issue27_preview_ablation/ablate.py --p1 "$SPEC" --p2 maxdamage --greedy \
      -n 200 --teams "$TEAMS" --format "$FMT" --seed "$s" --out "/tmp/abl_$k_$s" 2>/dev/null | tail -1 > "$OUT/${k}_s$s.json"
  done
done
