#!/usr/bin/env bash
# The second round, after run.sh: the candidates' number and the rolls (its later cells
# moved to run2b.sh). Alone on the box.
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/issue27_search
T=../shared/teams/gen9vgc2023regc
PY=.venv/bin/python
cell() { # NAME P1 P2 ARGS...
  local name=$1 p1=$2 p2=$3; shift 3
  $PY -m tools.battle --p1 "$p1" --p2 "$p2" -n 200 --servers 2 "$@" | tail -1 > $E/$name.json
  $PY -c "import json; d=json.load(open('$E/$name.json')); print('$name', d['p1_win_rate'], d['ci95'], 'errors', d['showdown_errors'], 'unfinished', d['unfinished'], d.get('p1_search'), d['wall_s'])"
}
cell search_k16_maxdamage_s1 search:agent:regc maxdamage --teams $T --open-team-sheets --seed 1 --search-k 16
cell search_k32_maxdamage_s0 search:agent:regc maxdamage --teams $T --open-team-sheets --seed 0 --search-k 32
cell search_k8_r4_maxdamage_s0 search:agent:regc maxdamage --teams $T --open-team-sheets --seed 0 --search-samples 4 --search-k 8
cell search_k16_heuristic_s0 search:agent:regc heuristic --teams $T --open-team-sheets --seed 0 --search-k 16
cell search_k16_vs_plain_s0 search:agent:regc agent:regc --teams $T --open-team-sheets --greedy --seed 0 --search-k 16
