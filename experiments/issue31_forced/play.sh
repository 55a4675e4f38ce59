#!/usr/bin/env bash
# Does answering forced turns without the network change how a network trained with them
# plays? agent:regc (trained with every turn through its GRU) greedy vs maxdamage on the 238
# shared Reg C teams, 200 games for each of tools.battle seeds 0-2, once as before
# (--forced-by-network) and once answering them directly (the default): the same draws.
# Run from the repository root; writes experiments/issue31_forced/regc_{network,direct}_seed{0,1,2}.json
set -u
PY=${PY:-.venv/bin/python}
T=${TEAMS:-../shared/teams/gen9vgc2023regc}
OUT=experiments/issue31_forced
for seed in 0 1 2; do
  for way in network direct; do
    f=$OUT/regc_${way}_seed$seed.json
    [ -s "$f" ] && continue
    flag=""; [ "$way" = network ] && flag=--forced-by-network
    # shellcheck disable=SC2086
    $PY -m tools.battle --p1 agent:regc --p2 maxdamage -n 200 --teams "$T" --greedy --seed $seed $flag \
        --out "runs/forced_play/${way}_seed$seed" | tail -1 > "$f.tmp" && mv "$f.tmp" "$f"
  done
done
