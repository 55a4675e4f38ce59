#!/usr/bin/env bash
# How far do a beginner's doubles rules get against maxdamage? The heuristic baseline
# (league/players/heuristic.py) on the teams no network trained on, and the shipped agents
# against it (issue 27). Alone on the box.
set -euo pipefail
cd "$(dirname "$0")/../.."
E=experiments/issue27_heuristic
PY=.venv/bin/python
C=../shared/teams/gen9vgc2023regc
M=../shared/teams/gen9championsvgc2026regmb
F=gen9championsvgc2026regmb
for seed in 0 1 2; do
  $PY -m tools.battle --p1 heuristic --p2 maxdamage -n 200 --servers 2 --teams $C --seed $seed > $E/heuristic_maxdamage_regc_s$seed.json
done
$PY -m tools.battle --p1 heuristic --p2 random -n 200 --servers 2 --teams $C > $E/heuristic_random_regc.json
$PY -m tools.battle --p1 agent:regc --p2 heuristic -n 200 --servers 2 --teams $C --greedy > $E/regc_heuristic_greedy.json
$PY -m tools.battle --p1 agent:regc --p2 heuristic -n 200 --servers 2 --teams $C > $E/regc_heuristic_sampling.json
$PY -m tools.battle --p1 heuristic --p2 maxdamage -n 200 --servers 2 --format $F --teams $M > $E/heuristic_maxdamage_regmb.json
$PY -m tools.battle --p1 agent:regmb --p2 heuristic -n 200 --servers 2 --format $F --teams $M --greedy > $E/regmb_heuristic_greedy.json
# one rule off at a time, 400 games each vs maxdamage on the Reg C teams (seed 0)
for off in KO_BONUS=0 PROTECT_WEIGHT=0 TERA_COST=100 FAKE_OUT_BONUS=0 MATCHUP_WEIGHT=0; do
  $PY $E/ablate.py $off -- --p1 heuristic --p2 maxdamage -n 400 --servers 2 --teams $C > $E/ablate_${off%%=*}.json
done
