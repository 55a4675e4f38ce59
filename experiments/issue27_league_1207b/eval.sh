#!/usr/bin/env bash
# The hour's final, alone on the box after the hour, on the 238 shared Reg C teams it
# never trained on: experiments/issue27_epochs2_60min/eval.sh's cells (vs maxdamage 1,200
# greedy / 600 sampling, vs random 200, head to head with agent:regc 600, the snapshots'
# round robin, the curves), then head to head with the finals of the other regimes' hours:
# (a) self-play only, (b) the default hour, and (c) of 12-06 and of 12-07 (experiments/issue27_league_1207), before this fix.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-outputs/league_1207b}
E=${E:-experiments/issue27_league_1207b}
R=$R E=$E bash experiments/issue27_epochs2_60min/eval.sh
C=$(.venv/bin/python -c "import json,sys; print(json.load(open(sys.argv[1]))['checkpoint'])" $R/summary.json)
T=../shared/teams/gen9vgc2023regc
for other in a:outputs/selfplay_1206/checkpoints/ckpt_000012362.pt b:outputs/regc_1206b/checkpoints/ckpt_000012806.pt c1206:outputs/league_1206/checkpoints/ckpt_000007866.pt c1207:outputs/league_1207/checkpoints/ckpt_000007499.pt; do
  name=${other%%:*} O=${other#*:}
  for s in 0 1 2; do
    .venv/bin/python -m tools.battle --p1 "checkpoint:$C" --p2 "checkpoint:$O" -n 200 --teams $T --greedy --seed $s | tail -1 > $E/vs_${name}_greedy_s$s.json
  done
  [ ${name:0:1} = c ] || .venv/bin/python -m tools.battle --p1 "checkpoint:$C" --p2 "checkpoint:$O" -n 200 --teams $T --seed 0 | tail -1 > $E/vs_${name}_sampling_s0.json
  .venv/bin/python experiments/issue27_screen/pool.py $E/vs_${name}_greedy_s*.json
done
