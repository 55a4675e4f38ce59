#!/usr/bin/env bash
# The league hour's final, alone on the box after the hour, on the 238 shared Reg C teams
# it never trained on: experiments/issue27_epochs2_60min/eval.sh's cells (vs maxdamage
# 1,200 greedy / 600 sampling, vs random 200, head to head with agent:regc 600, the
# snapshots' round robin, the curves), then the round robin of regime (b)'s and (c)'s
# finals: this final against the default hour's (experiments/issue27_regc_1206), 600
# greedy and 200 sampling games.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-outputs/league_1206}
E=${E:-experiments/issue27_league_1206}
B=${B:-outputs/regc_1206b/checkpoints/ckpt_000012806.pt}
R=$R E=$E bash experiments/issue27_epochs2_60min/eval.sh
C=$(.venv/bin/python -c "import json,sys; print(json.load(open(sys.argv[1]))['checkpoint'])" $R/summary.json)
T=../shared/teams/gen9vgc2023regc
for s in 0 1 2; do
  .venv/bin/python -m tools.battle --p1 "checkpoint:$C" --p2 "checkpoint:$B" -n 200 --teams $T --greedy --seed $s | tail -1 > $E/vs_b_greedy_s$s.json
done
.venv/bin/python -m tools.battle --p1 "checkpoint:$C" --p2 "checkpoint:$B" -n 200 --teams $T --seed 0 | tail -1 > $E/vs_b_sampling_s0.json
.venv/bin/python experiments/issue27_screen/pool.py $E/vs_b_greedy_s*.json
