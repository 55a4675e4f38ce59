#!/usr/bin/env bash
# Evaluate a run trained with open team sheets: its final network against maxdamage
# (greedy and sampling) and random (greedy) on the 238 shared Reg C teams, 200 games a
# cell, every battle with open team sheets (both players accept; maxdamage and random
# do not read them).
# usage: experiments/issue27_sheets/eval.sh RUN_DIR [N]
set -euo pipefail
RUN=${1:?run dir}; N=${2:-200}
PY=${PY:-.venv/bin/python}
TEAMS=${TEAMS:-../shared/teams/gen9vgc2023regc}
c=$(python3 -c "import json; print(json.load(open('$RUN/summary.json'))['checkpoint'])")
for cell in maxdamage:greedy maxdamage:sampling random:greedy; do
  opp=${cell%%:*}; mode=${cell#*:}
  f=$RUN/battle_${opp}_${mode}.json
  [ -s "$f" ] && continue
  flag=""; [ "$mode" = greedy ] && flag=--greedy
  $PY -m tools.battle --p1 "checkpoint:$c" --p2 "$opp" -n "$N" --teams "$TEAMS" $flag --open-team-sheets \
      --out "$RUN/battle_runs_${opp}_$mode" | tail -1 > "$f.tmp" && mv "$f.tmp" "$f"
  python3 -c "import json; d=json.load(open('$f')); print('$opp $mode', d['p1_win_rate'], d['ci95'], 'errors', d['showdown_errors'], 'unfinished', d['unfinished'])"
done
