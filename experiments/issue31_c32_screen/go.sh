#!/usr/bin/env bash
# The two jobs of this screen side by side, then 400 more greedy and 400 more sampling
# games each. Run from a checkout of the code measured (here a worktree of main at
# dd52dab, so that edits in the main checkout could not reach the running jobs).
cd "$(dirname "$0")/../.."
OUT=${OUT:-/work/runs/c32}
experiments/issue27_screen/run.sh "$OUT" 2500 0 c32_s0='sim.concurrency=32' > "$OUT.s0.log" 2>&1 &
experiments/issue27_screen/run.sh "$OUT" 2500 1 c32_s1='sim.concurrency=32' > "$OUT.s1.log" 2>&1 &
wait
experiments/issue27_credit_screen/more_games.sh "$OUT/c32_s0" "$OUT/c32_s1"
MODE=sampling experiments/issue27_credit_screen/more_games.sh "$OUT/c32_s0" "$OUT/c32_s1"
