#!/usr/bin/env bash
# Issue 32's must-show figures for partial labels (README.md here). Run from the repository
# root: bash experiments/replays_partial/run.sh [a|b|all]. Data under runs/replays_partial/.
set -euo pipefail
E=experiments/replays_partial
R=runs/replays_partial
PY="nice -n 19 .venv/bin/python"
mkdir -p "$R"
part=${1:-all}

if [[ $part == a || $part == all ]]; then
  # (a) the two public replays, and 1,000 of our own battles read back as replays
  $PY -m tools.bc parse-replays ../shared/replays --out "$R/public" > "$E/public.log" 2>&1
  tail -1 "$E/public.log" > "$E/public.json"
  $PY -m tools.bc generate -n 1000 --out "$R/own" --seed 1 > "$E/own_generate.log" 2>&1
  $PY -m tools.bc as-replays "$R/own" --out "$R/own_replays" > "$E/own_as_replays.json"
  $PY -m tools.bc parse-replays "$R/own_replays" --out "$R/own_data" --workers 2 --quiet > "$E/own_parse.log" 2>&1
  tail -1 "$E/own_parse.log" > "$E/own_parse.json"
  $PY -m tools.bc validate-replays "$R/own" > "$E/own_validate.json"
fi

if [[ $part == b || $part == all ]]; then
  # (b) BC on 2,000 maxdamage battles, from our logs and from their replays; top-1 on 500
  # battles of the 12 shipped teams (none of them in A's 238)
  $PY -m tools.bc generate -n 2000 --p1 maxdamage --p2 maxdamage --teams ../shared/teams/gen9vgc2023regc \
    --out "$R/A" > "$E/generate_A.log" 2>&1
  $PY -m tools.bc generate -n 500 --p1 maxdamage --p2 maxdamage --seed 7 --out "$R/B" > "$E/generate_B.log" 2>&1
  $PY -m tools.bc as-replays "$R/A" --out "$R/A_replays" > "$E/A_as_replays.json"
  $PY -m tools.bc parse-replays "$R/A_replays" --out "$R/A_human" --workers 2 --quiet > "$E/parse_A_replays.log" 2>&1
  $PY -m tools.bc train "$R/A" --out "$R/bc_logs" > "$E/train_logs.log" 2>&1
  $PY -m tools.bc train "$R/A_human" --out "$R/bc_replays" > "$E/train_replays.log" 2>&1
  $PY -m tools.bc parse "$R/B" > "$E/parse_B.log" 2>&1
  $PY -m tools.bc eval "$R/bc_logs/bc.pt" "$R/B" > "$E/eval_logs.log" 2>&1
  $PY -m tools.bc eval "$R/bc_replays/bc.pt" "$R/B" > "$E/eval_replays.log" 2>&1
  tail -1 "$E/eval_logs.log" > "$E/eval_logs.json"
  tail -1 "$E/eval_replays.log" > "$E/eval_replays.json"
fi
