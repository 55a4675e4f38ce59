#!/bin/sh
# Reg M-B trained on 300 of the 400 shared teams, played on the other 100 (issue 28).
# usage: experiments/issue28_regmb_300teams/eval.sh RUN_DIR SPLIT_DIR OUT
#   SPLIT_DIR holds A300/ and B100/: the 400 files of ../shared/teams/gen9championsvgc2026regmb
#   sorted by name, links to the first 300 and to the other 100 (as experiments/bc_regmb split them)
set -e
RUN=$1; SPLIT=$2; OUT=$3; F=gen9championsvgc2026regmb
mkdir -p "$OUT"
C=$(ls "$RUN"/checkpoints/ckpt_*.pt | sort | tail -1)
echo "checkpoint $C" > "$OUT/checkpoint.txt"
for s in 0 1 2; do
  python -m tools.battle --p1 "checkpoint:$C" --p2 maxdamage -n 200 --format $F --teams "$SPLIT/B100" --greedy --seed $s | tail -1 > "$OUT/new_maxdamage_greedy_s$s.json"
  python -m tools.battle --p1 agent:regmb --p2 maxdamage -n 200 --format $F --teams "$SPLIT/B100" --greedy --seed $s | tail -1 > "$OUT/regmb_maxdamage_greedy_s$s.json"
done
python -m tools.battle --p1 "checkpoint:$C" --p2 maxdamage -n 200 --format $F --teams "$SPLIT/B100" --seed 0 | tail -1 > "$OUT/new_maxdamage_sampling_s0.json"
python -m tools.battle --p1 "checkpoint:$C" --p2 random -n 200 --format $F --teams "$SPLIT/B100" --greedy --seed 0 | tail -1 > "$OUT/new_random_greedy_s0.json"
python -m tools.battle --p1 "checkpoint:$C" --p2 agent:regmb -n 200 --format $F --teams "$SPLIT/B100" --greedy --seed 0 | tail -1 > "$OUT/new_vs_regmb_greedy_s0.json"
