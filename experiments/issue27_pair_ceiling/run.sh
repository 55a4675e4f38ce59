#!/bin/bash
# How much of a team pair that agent:regc loses can a policy win? (issue 27)
# For each pair (A, B): a best response to maxdamage trained on the pool {A, B} (so the
# pairs A-B, B-A and the two mirrors), from scratch and from agent:regc's weights, then
# played on the pair itself (A for the best response, B for maxdamage), 200 games greedy
# and 200 sampling; agent:regc on the same pair for comparison.
#   experiments/issue27_pair_ceiling/run.sh OUT [TEAMS_DIR]
set -eu
OUT=${1:?usage: run.sh OUT [TEAMS_DIR]}
T=${2:-../shared/teams/gen9vgc2023regc}
PY=${PYTHON:-python}
checkpoint_of() {  # EXPLOIT_JSON -> the best response's checkpoint (its last line's JSON)
  $PY -c "import json,sys; print(json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])['checkpoint'])" "$1"
}
battle() {  # SPEC DIR NAME
  for mode in greedy sampling; do
    g=""; [ $mode = greedy ] && g="--greedy"
    $PY -m tools.battle --p1 "$1" --p2 maxdamage --p1-teams "$2/a" --p2-teams "$2/b" -n 200 --seed 1 $g \
      --out "$2/$3_$mode" 2> "$2/$3_$mode.log" | tail -1 > "$2/$3_$mode.json"
  done
}
for p in "C311 C306" "C67 C334" "C131 C334"; do
  set -- $p
  d=$OUT/$1_$2
  mkdir -p "$d/pool" "$d/a" "$d/b"
  for t in "$1" "$2"; do ln -sf "$(realpath "$T/$t.txt")" "$d/pool/"; done
  ln -sf "$(realpath "$T/$1.txt")" "$d/a/"; ln -sf "$(realpath "$T/$2.txt")" "$d/b/"
  battle agent:regc "$d" regc
  for init in scratch agent:regc; do
    tag=$([ $init = scratch ] && echo "" || echo "ft_")
    $PY -m tools.exploit maxdamage --init $init --minutes 25 --updates 1500 --train-teams "$d/pool" \
      --teams "$d/pool" -n 200 --seed 0 --out "$d/${tag}br" > "$d/${tag}exploit.json" 2> "$d/${tag}exploit.log"
    battle "checkpoint:$(checkpoint_of "$d/${tag}exploit.json")" "$d" "${tag}pair"
  done
done
# the matchup study's 12 teams as one pool: a best response from scratch per seed (0: pool12,
# 1: pool12_s1, 2: pool12_s2), then its 36 pairs
mkdir -p "$OUT/pool12/pool"
for t in C54 C299 C496 C67 C311 C131 C231 C346 C334 C306 C9 C502; do ln -sf "$(realpath "$T/$t.txt")" "$OUT/pool12/pool/"; done
for seed in 0 1 2; do
  d=$OUT/pool12$([ $seed = 0 ] || echo "_s$seed")
  mkdir -p "$d"; [ $seed = 0 ] || ln -sfn "$(realpath "$OUT/pool12/pool")" "$d/pool"
  $PY -m tools.exploit maxdamage --minutes 25 --updates 1500 --train-teams "$d/pool" --teams "$d/pool" -n 200 --seed $seed \
    --out "$d/br" run.seed=$seed > "$d/exploit.json" 2> "$d/exploit.log"
  $PY experiments/issue27_matchups/run.py --p1 "checkpoint:$(checkpoint_of "$d/exploit.json")" --greedy -k 6 -n 1080 \
    --teams "$T" --out "$d/matchups" > "$d/matchups.json"
done
# each member on 36 pairs of 12 teams none of them trained on (run.py --seed 2), then the choice by value at preview
CK="$OUT/pool12/br/train/checkpoints/ckpt_000001500.pt $OUT/pool12_s1/br/train/checkpoints/ckpt_000001500.pt $OUT/pool12_s2/br/train/checkpoints/ckpt_000001500.pt"
for s in "" _s1 _s2; do
  $PY experiments/issue27_matchups/run.py --p1 "checkpoint:$OUT/pool12$s/br/train/checkpoints/ckpt_000001500.pt" --greedy -k 6 -n 1080 \
    --seed 2 --teams "$T" --out "$OUT/unseen$s" > "$OUT/unseen$s.json"
done
$PY experiments/issue27_pair_ceiling/preview_values.py "$OUT/preview_values.json" --members $CK -n 300 --teams "$T" \
  --pairs "$OUT/pool12/matchups/pairs.json" "$OUT/pool12_s1/matchups/pairs.json" "$OUT/pool12_s2/matchups/pairs.json"
$PY experiments/issue27_pair_ceiling/preview_values.py "$OUT/preview_values_unseen.json" --seed 2 --members $CK -n 300 --teams "$T" \
  --pairs "$OUT/unseen/pairs.json" "$OUT/unseen_s1/pairs.json" "$OUT/unseen_s2/pairs.json"
# the same 36 unseen pairs again with other battle seeds: the best member per pair chosen on one run, scored on the other
for s in "" _s1 _s2; do
  $PY experiments/issue27_matchups/run.py --p1 "checkpoint:$OUT/pool12$s/br/train/checkpoints/ckpt_000001500.pt" --greedy -k 6 -n 1080 \
    --seed 2 --battle-seed 12 --teams "$T" --out "$OUT/unseenB$s" > "$OUT/unseenB$s.json"
done
# the three as one player (mean of their log-probabilities), on the same unseen pairs
$PY experiments/issue27_pair_ceiling/ensemble.py "$OUT/ensemble_unseen_greedy.json" --members $CK --seed 2 -n 1080 --greedy --teams "$T"
