#!/usr/bin/env bash
# The second round, after run.sh: the candidates' number and the rolls (its later cells
# moved to run2b.sh). Alone on the box.
set -euo pipefail
cd "$(dirname "$0")/../.."
source experiments/issue27_search/cell.sh
cell search_k16_maxdamage_s1 search:agent:regc maxdamage --teams $T --open-team-sheets --seed 1 --search-k 16
cell search_k32_maxdamage_s0 search:agent:regc maxdamage --teams $T --open-team-sheets --seed 0 --search-k 32
cell search_k8_r4_maxdamage_s0 search:agent:regc maxdamage --teams $T --open-team-sheets --seed 0 --search-samples 4 --search-k 8
cell search_k16_heuristic_s0 search:agent:regc heuristic --teams $T --open-team-sheets --seed 0 --search-k 16
cell search_k16_vs_plain_s0 search:agent:regc agent:regc --teams $T --open-team-sheets --greedy --seed 0 --search-k 16
