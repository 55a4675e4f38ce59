#!/usr/bin/env bash
# How much of the look-ahead's gain needs a good network: search around two early
# snapshots of the 2026-12-05 hour (updates 200 and 1,300), k 16, against maxdamage,
# open team sheets, seed 0; each alone on the same draws. Alone on the box.
set -euo pipefail
cd "$(dirname "$0")/../.."
source experiments/issue27_search/cell.sh
for snap in 0005 0008; do
  P=checkpoint:outputs/regc_1205/league/past-$snap.pt
  cell early${snap}_search_k16_maxdamage_s0 search:$P maxdamage --teams $T --open-team-sheets --seed 0 --search-k 16
  cell early${snap}_plain_maxdamage_s0 $P maxdamage --teams $T --open-team-sheets --greedy --seed 0
done
