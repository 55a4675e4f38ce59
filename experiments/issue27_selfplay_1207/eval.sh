#!/usr/bin/env bash
# The second-seed self-play hour's final, alone on the box after the hour, on the 238
# shared Reg C teams it never trained on: experiments/issue27_epochs2_60min/eval.sh's cells
# (vs maxdamage 1,200 greedy / 600 sampling, vs random 200, head to head with agent:regc
# 600, the snapshots' round robin, the curves), then head to head (600 greedy) with the
# first seed's final (a, experiments/issue27_selfplay_1206), (b) the default hour and both
# seeds of (c) the full league.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-outputs/selfplay_1207}
E=${E:-experiments/issue27_selfplay_1207}
R=$R E=$E bash experiments/issue27_epochs2_60min/eval.sh
C=$(.venv/bin/python -c "import json,sys; print(json.load(open(sys.argv[1]))['checkpoint'])" $R/summary.json)
T=../shared/teams/gen9vgc2023regc
for other in a1206:outputs/selfplay_1206/checkpoints/ckpt_000012362.pt b:outputs/regc_1206b/checkpoints/ckpt_000012806.pt c1207b:outputs/league_1207b/checkpoints/ckpt_000006826.pt c1207c:outputs/league_1207c/checkpoints/ckpt_000007098.pt; do
  name=${other%%:*} O=${other#*:}
  for s in 0 1 2; do
    .venv/bin/python -m tools.battle --p1 "checkpoint:$C" --p2 "checkpoint:$O" -n 200 --teams $T --greedy --seed $s | tail -1 > $E/vs_${name}_greedy_s$s.json
  done
  .venv/bin/python experiments/issue27_screen/pool.py $E/vs_${name}_greedy_s*.json
done
