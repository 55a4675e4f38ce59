#!/bin/bash
# Does drawing the team pairs the agent loses more often let one network fit more pairs?
# (issue 27) The per-pair ceiling study's 12-team best response to maxdamage
# (experiments/issue27_pair_ceiling, pool12*: 1,500 updates, three seeds), now with
# league.sampler.team_pfsp=squared: each battle's (own team, foe team) drawn by (1-p)^2 of
# the agent's shrunk win rate with that pair, a quarter of battles uniform. Then the same
# two evaluations: the study's 36 pairs of the 12 training teams, and 36 pairs of 12 teams
# none of them trained on (run.py --seed 2), 1,080 greedy games each.
#   [SEEDS="0 1 2"] [ARM="league.sampler.team_pfsp=squared"] experiments/issue27_team_pfsp/run.sh OUT POOL12_DIR [TEAMS_DIR]
# POOL12_DIR: the 12 teams as a directory (the study's OUT/pool12/pool); ARM: the overrides
# of the arm (space-separated), the seed's directory OUT/s<seed>
set -eu
OUT=${1:?usage: run.sh OUT POOL12_DIR [TEAMS_DIR]}
POOL=${2:?usage: run.sh OUT POOL12_DIR [TEAMS_DIR]}
T=${3:-../shared/teams/gen9vgc2023regc}
PY=${PYTHON:-python}
checkpoint_of() {  # EXPLOIT_JSON -> the best response's checkpoint (its last line's JSON)
  $PY -c "import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])['checkpoint'])" "$1"
}
ARM=${ARM:-league.sampler.team_pfsp=squared}
for seed in ${SEEDS:-0 1 2}; do
  d=$OUT/s$seed
  mkdir -p "$d"
  $PY -m tools.exploit maxdamage --minutes 25 --updates 1500 --train-teams "$POOL" --teams "$POOL" -n 200 --seed $seed \
    --out "$d/br" run.seed=$seed $ARM > "$d/exploit.json" 2> "$d/exploit.log"
  ck=$(checkpoint_of "$d/exploit.json")
  $PY experiments/issue27_matchups/run.py --p1 "checkpoint:$ck" --greedy -k 6 -n 1080 --teams "$T" --out "$d/matchups" \
    > "$d/matchups.json"
  $PY experiments/issue27_matchups/run.py --p1 "checkpoint:$ck" --greedy -k 6 -n 1080 --seed 2 --teams "$T" --out "$d/unseen" \
    > "$d/unseen.json"
done
