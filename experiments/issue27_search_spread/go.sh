#!/usr/bin/env bash
# The one-turn look-ahead with and without the foe's spread (issue 27): search:agent:regc,
# k 16, 2 rolls, open team sheets, on the 238 shared Reg C teams; the copies' foes as they
# are (exact) or with the even spread and shown HP share a player assumes (even). Each pair
# of cells plays the same team draws (tools.battle seeds). Every cell runs through
# changes.py: tools.battle's JSON plus what the look-ahead changed. Alone on the box.
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/issue27_search_spread
T=../shared/teams/gen9vgc2023regc
PY=${PY:-.venv/bin/python}
cell() { # NAME P1 P2 ARGS...
  local name=$1 p1=$2 p2=$3; shift 3
  $PY $E/changes.py --p1 "$p1" --p2 "$p2" -n 200 --servers 2 --out runs/search_spread/$name "$@" | tail -1 > $E/$name.json
  $PY -c "import json; d=json.load(open('$E/$name.json')); print('$name', d['p1_win_rate'], d['ci95'], 'errors', d['showdown_errors'], 'unfinished', d['unfinished'], d.get('p1_search'), d['wall_s'])"
}
for s in 0 1 2 3; do
  for spread in exact even; do
    cell ${spread}_maxdamage_s$s search:agent:regc maxdamage --teams $T --open-team-sheets --seed $s --search-k 16 --search-foe-spread $spread
  done
done
for spread in exact even; do
  cell ${spread}_heuristic_s0 search:agent:regc heuristic --teams $T --open-team-sheets --seed 0 --search-k 16 --search-foe-spread $spread
  cell ${spread}_vs_plain_s0 search:agent:regc agent:regc --teams $T --open-team-sheets --greedy --seed 0 --search-k 16 --search-foe-spread $spread
done
