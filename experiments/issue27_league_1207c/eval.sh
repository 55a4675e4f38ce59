#!/usr/bin/env bash
# The second-seed league hour's final, alone on the box after the hour, on the 238 shared
# Reg C teams it never trained on: experiments/issue27_epochs2_60min/eval.sh's cells (vs
# maxdamage 1,200 greedy / 600 sampling, vs random 200, head to head with agent:regc 600,
# the snapshots' round robin, the curves), then head to head (600 greedy) with the first
# seed's final (experiments/issue27_league_1207b) and with the finals of (b) the default
# hour and (a) self-play only.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-outputs/league_1207c}
E=${E:-experiments/issue27_league_1207c}
R=$R E=$E bash experiments/issue27_epochs2_60min/eval.sh
C=$(.venv/bin/python -c "import json,sys; print(json.load(open(sys.argv[1]))['checkpoint'])" $R/summary.json)
T=../shared/teams/gen9vgc2023regc
for other in c1207b:outputs/league_1207b/checkpoints/ckpt_000006826.pt b:outputs/regc_1206b/checkpoints/ckpt_000012806.pt a:outputs/selfplay_1206/checkpoints/ckpt_000012362.pt; do
  name=${other%%:*} O=${other#*:}
  for s in 0 1 2; do
    .venv/bin/python -m tools.battle --p1 "checkpoint:$C" --p2 "checkpoint:$O" -n 200 --teams $T --greedy --seed $s | tail -1 > $E/vs_${name}_greedy_s$s.json
  done
  .venv/bin/python experiments/issue27_screen/pool.py $E/vs_${name}_greedy_s*.json
done
