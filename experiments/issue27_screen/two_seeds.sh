#!/usr/bin/env bash
# A two-seed screen of one setting: seeds 0 and 1 side by side at 2,500 learner updates
# (run.sh: then 200 greedy + 200 sampling games each), then 400 more greedy and 400 more
# sampling games each (more_games.sh): 600 + 600 vs maxdamage on the 238 shared teams.
# usage: experiments/issue27_screen/two_seeds.sh OUTDIR NAME 'overrides'
#   jobs NAME_s0 and NAME_s1 under OUTDIR; run from the repository root
set -u
OUT=${1:?outdir}; NAME=${2:?name}; OVER=${3:?overrides}
mkdir -p "$OUT"
for s in 0 1; do
  experiments/issue27_screen/run.sh "$OUT" 2500 $s "${NAME}_s$s=$OVER" > "$OUT/screen_s$s.log" 2>&1 &
done
wait
experiments/issue27_credit_screen/more_games.sh "$OUT/${NAME}_s0" "$OUT/${NAME}_s1"
MODE=sampling experiments/issue27_credit_screen/more_games.sh "$OUT/${NAME}_s0" "$OUT/${NAME}_s1"
