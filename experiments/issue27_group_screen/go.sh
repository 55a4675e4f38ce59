#!/usr/bin/env bash
# The two jobs of this screen side by side (reg_c with ppo_advantage=group, seeds 0 and 1,
# 2,500 learner updates each), each then playing 600 greedy and 600 sampling games vs
# maxdamage on the 238 shared Reg C teams (tools.battle seeds 0, 1, 2).
cd "$(dirname "$0")/../.."
OUT=${OUT:-/work/runs/group}
mkdir -p "$OUT"
for s in 0 1; do
  experiments/issue27_screen/run.sh "$OUT" 2500 $s group_s$s='learner.rnad.ppo_advantage=group' > "$OUT/screen_s$s.log" 2>&1 &
done
wait
experiments/issue27_credit_screen/more_games.sh "$OUT/group_s0" "$OUT/group_s1"
MODE=sampling experiments/issue27_credit_screen/more_games.sh "$OUT/group_s0" "$OUT/group_s1"
