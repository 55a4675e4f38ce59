#!/usr/bin/env bash
# run2.sh's cells after the candidates' default became 16 (stopped there and rerun with
# every setting named): the new hour's network with search, Reg M-B, agent:regc alone
# without sheets on seeds 0-5 (the hour's comparison), k 16 on fresh seeds 2-3 (the
# setting was picked on seeds 0-1). Alone on the box.
set -euo pipefail
cd "$(dirname "$0")/../.."
source experiments/issue27_search/cell.sh
H=checkpoint:outputs/regc_1205/checkpoints/ckpt_000012614.pt
for s in 2 3; do
  cell search_k16_maxdamage_s$s search:agent:regc maxdamage --teams $T --open-team-sheets --seed $s --search-k 16
  cell plain_maxdamage_s$s agent:regc maxdamage --teams $T --open-team-sheets --greedy --seed $s
done
for s in 0 1; do
  cell hour_search_k16_maxdamage_s$s search:$H maxdamage --teams $T --open-team-sheets --seed $s --search-k 16
  cell hour_plain_maxdamage_s$s $H maxdamage --teams $T --open-team-sheets --greedy --seed $s
done
for s in 0 1 2 3 4 5; do cell regc_plain_noots_maxdamage_s$s agent:regc maxdamage --teams $T --greedy --seed $s; done
F=gen9championsvgc2026regmb
cell regmb_search_k16_maxdamage_s0 search:agent:regmb maxdamage --format $F --teams ../shared/teams/$F --seed 0 --search-k 16
cell regmb_plain_maxdamage_s0 agent:regmb maxdamage --format $F --teams ../shared/teams/$F --greedy --seed 0
