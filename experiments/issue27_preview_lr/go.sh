#!/usr/bin/env bash
# The two jobs of this screen side by side (reg_c with learner.preview_lr_scale=10, seeds 0 and 1,
# 2,500 learner updates each), each then playing 600 greedy and 600 sampling games vs
# maxdamage on the 238 shared Reg C teams (tools.battle seeds 0, 1, 2).
cd "$(dirname "$0")/../.."
OUT=${OUT:-/work/runs/preview_lr}
mkdir -p "$OUT"
for s in 0 1; do
  experiments/issue27_screen/run.sh "$OUT" 2500 $s plr10_s$s='learner.preview_lr_scale=10' > "$OUT/screen_s$s.log" 2>&1 &
done
wait
experiments/issue27_credit_screen/more_games.sh "$OUT/plr10_s0" "$OUT/plr10_s1"
MODE=sampling experiments/issue27_credit_screen/more_games.sh "$OUT/plr10_s0" "$OUT/plr10_s1"
