#!/usr/bin/env bash
# More restrictions of go.sh's look-ahead, same seeds, same team draws, alone on the box:
# RESTRICTIONS (default moves-analysis: the `moves` candidates ranked by `heuristic`'s joint
# score, our own damage analysis, instead of Showdown's copies); RESTRICTIONS='tera
# moves-same-tera' the second sitting. SUFFIX: appended to each file's restriction name
# (a sitting on other code: SUFFIX=_1207pm).
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/issue27_search_parts
T=../shared/teams/gen9vgc2023regc
PY=${PY:-.venv/bin/python}
SUFFIX=${SUFFIX:-}
for s in 0 1 2 3; do
  for r in ${RESTRICTIONS:-moves-analysis}; do
  $PY $E/parts.py $r --p1 search:agent:regc --p2 maxdamage -n 200 --servers 2 --out runs/search_parts/${r}_s$s \
    --teams $T --open-team-sheets --seed $s | tail -1 > $E/${r}${SUFFIX}_s$s.json
  $PY -c "import json; d=json.load(open('$E/${r}${SUFFIX}_s$s.json')); print('${r}_s$s', d['p1_win_rate'], d['ci95'], 'errors', d['showdown_errors'], 'unfinished', d['unfinished'], 'searches', d.get('searches'), 'cand', d.get('candidates'), 'changed', d.get('changed'), d['wall_s'])"
  done
done
