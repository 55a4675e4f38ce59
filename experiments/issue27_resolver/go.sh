#!/usr/bin/env bash
# resolver.py's turn in place of the look-ahead's copies, against maxdamage on the same team
# draws as experiments/issue27_search_parts (seeds 0-3, 200 games each, open sheets, the
# 238 shared Reg C teams): VARIANTS (default: resolver resolver0.1); SUFFIX appended to names;
# EXTRA: more tools.battle arguments (--search-k 64).
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/issue27_resolver
T=../shared/teams/gen9vgc2023regc
PY=${PY:-.venv/bin/python}
SUFFIX=${SUFFIX:-}
P1=${P1:-search:agent:regc}
for s in 0 1 2 3; do
  for v in ${VARIANTS:-resolver resolver0.1}; do
  $PY $E/play.py $v --p1 $P1 --p2 ${P2:-maxdamage} -n 200 --servers 2 --out runs/resolver/${v}${SUFFIX}_s$s \
    --teams $T --open-team-sheets --seed $s ${EXTRA:-} | tail -1 > $E/${v}${SUFFIX}_s$s.json
  $PY -c "import json; d=json.load(open('$E/${v}${SUFFIX}_s$s.json')); print('${v}${SUFFIX}_s$s', d['p1_win_rate'], d['ci95'], 'errors', d['showdown_errors'], 'unfinished', d['unfinished'], 'searches', d.get('searches'), 'changed', d.get('changed'), d['wall_s'])"
  done
done
