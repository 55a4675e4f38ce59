#!/usr/bin/env bash
# A one-turn look-ahead at play time (search:SPEC, league/players/search.py) around the
# shipped agent:regc, against the agent alone on the same draws, on the 238 shared Reg C
# teams it never trained on, with open team sheets (the look-ahead's copies know the foe's
# sets; with the sheets a player knows them too). Alone on the box. k 8 (the default
# then), 2 rolls a candidate, prior 0 unless a cell says.
set -euo pipefail
cd "$(dirname "$0")/../.."
source experiments/issue27_search/cell.sh
for s in 0 1; do
  cell search_maxdamage_s$s search:agent:regc maxdamage --teams $T --open-team-sheets --seed $s --search-k 8
  cell plain_maxdamage_s$s agent:regc maxdamage --teams $T --open-team-sheets --greedy --seed $s
done
cell search_heuristic_s0 search:agent:regc heuristic --teams $T --open-team-sheets --seed 0 --search-k 8
cell plain_heuristic_s0 agent:regc heuristic --teams $T --open-team-sheets --greedy --seed 0
cell search_vs_plain_s0 search:agent:regc agent:regc --teams $T --open-team-sheets --greedy --seed 0 --search-k 8
cell search_maxdamage_noots_s0 search:agent:regc maxdamage --teams $T --seed 0 --search-k 8
cell search_k16_maxdamage_s0 search:agent:regc maxdamage --teams $T --open-team-sheets --seed 0 --search-k 16
