#!/usr/bin/env bash
# The self-play hour's final, alone on the box after the hour, on the 238 shared Reg C
# teams it never trained on: experiments/issue27_epochs2_60min/eval.sh's cells (vs
# maxdamage 1,200 greedy / 600 sampling, vs random 200, head to head with agent:regc 600,
# the snapshots' round robin, the curves), then the round robin of the three regimes'
# finals: this final (a) against the default hour's (b, experiments/issue27_regc_1206) and
# the full league's (c, experiments/issue27_league_1206), 600 greedy and 200 sampling
# games each ((b) against (c) is in experiments/issue27_league_1206).
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-outputs/selfplay_1206}
E=${E:-experiments/issue27_selfplay_1206}
B=${B:-outputs/regc_1206b/checkpoints/ckpt_000012806.pt}
C=${C:-outputs/league_1206/checkpoints/ckpt_000007866.pt}
R=$R E=$E bash experiments/issue27_epochs2_60min/eval.sh
A=$(.venv/bin/python -c "import json,sys; print(json.load(open(sys.argv[1]))['checkpoint'])" $R/summary.json)
T=../shared/teams/gen9vgc2023regc
for other in b c; do
  O=$B; [ $other = c ] && O=$C
  for s in 0 1 2; do
    .venv/bin/python -m tools.battle --p1 "checkpoint:$A" --p2 "checkpoint:$O" -n 200 --teams $T --greedy --seed $s | tail -1 > $E/vs_${other}_greedy_s$s.json
  done
  .venv/bin/python -m tools.battle --p1 "checkpoint:$A" --p2 "checkpoint:$O" -n 200 --teams $T --seed 0 | tail -1 > $E/vs_${other}_sampling_s0.json
  .venv/bin/python experiments/issue27_screen/pool.py $E/vs_${other}_greedy_s*.json
done
