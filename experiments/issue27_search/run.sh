#!/usr/bin/env bash
# A one-turn look-ahead at play time (search:SPEC, league/players/search.py) around the
# shipped agent:regc, against the agent alone on the same draws, on the 238 shared Reg C
# teams it never trained on, with open team sheets (the look-ahead's copies know the foe's
# sets; with the sheets a player knows them too). Alone on the box. k 8 (the default
# then), 2 rolls a candidate, prior 0 unless a cell says.
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/issue27_search
T=../shared/teams/gen9vgc2023regc
PY=.venv/bin/python
cell() { # NAME P1 P2 ARGS...
  local name=$1 p1=$2 p2=$3; shift 3
  $PY -m tools.battle --p1 "$p1" --p2 "$p2" -n 200 --teams $T --servers 2 "$@" | tail -1 > $E/$name.json
  $PY -c "import json; d=json.load(open('$E/$name.json')); print('$name', d['p1_win_rate'], d['ci95'], 'errors', d['showdown_errors'], 'unfinished', d['unfinished'], d.get('p1_search'), d['wall_s'])"
}
for s in 0 1; do
  cell search_maxdamage_s$s search:agent:regc maxdamage --open-team-sheets --seed $s --search-k 8
  cell plain_maxdamage_s$s agent:regc maxdamage --open-team-sheets --greedy --seed $s
done
cell search_heuristic_s0 search:agent:regc heuristic --open-team-sheets --seed 0 --search-k 8
cell plain_heuristic_s0 agent:regc heuristic --open-team-sheets --greedy --seed 0
cell search_vs_plain_s0 search:agent:regc agent:regc --open-team-sheets --greedy --seed 0 --search-k 8
cell search_maxdamage_noots_s0 search:agent:regc maxdamage --seed 0 --search-k 8
cell search_k16_maxdamage_s0 search:agent:regc maxdamage --open-team-sheets --seed 0 --search-k 16
