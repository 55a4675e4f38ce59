#!/usr/bin/env bash
# Which of the look-ahead's overrides carry its strength (issue 27): search:agent:regc, k 16,
# 2 rolls, open team sheets, the even foe spread (the default), against maxdamage on the
# 238 shared Reg C teams; the full look-ahead, one allowed only to add Protect, one allowed
# only to change attacking moves, targets and tera, and the network alone (greedy). Seeds 0-3 (800 games a restriction);
# each seed's three cells play the same team draws. Alone on the box.
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/issue27_search_parts
T=../shared/teams/gen9vgc2023regc
PY=${PY:-.venv/bin/python}
for s in 0 1 2 3; do
  for r in full protect moves; do
    $PY $E/parts.py $r --p1 search:agent:regc --p2 maxdamage -n 200 --servers 2 --out runs/search_parts/${r}_s$s \
      --teams $T --open-team-sheets --seed $s | tail -1 > $E/${r}_s$s.json
    $PY -c "import json; d=json.load(open('$E/${r}_s$s.json')); print('${r}_s$s', d['p1_win_rate'], d['ci95'], 'errors', d['showdown_errors'], 'unfinished', d['unfinished'], 'searches', d.get('searches'), 'cand', d.get('candidates'), 'changed', d.get('changed'), d['wall_s'])"
  done
  $PY -m tools.battle --p1 agent:regc --p2 maxdamage --greedy -n 200 --servers 2 --out runs/search_parts/network_s$s \
    --teams $T --open-team-sheets --seed $s | tail -1 > $E/network_s$s.json
  $PY -c "import json; d=json.load(open('$E/network_s$s.json')); print('network_s$s', d['p1_win_rate'], d['ci95'], d['wall_s'])"
done
