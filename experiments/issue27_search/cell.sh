# The helper every script here uses (sourced from the repository root): one tools.battle
# cell of 200 games into $E/NAME.json, then its one-line summary. E (this folder), T (the
# 238 shared Reg C teams) and PY are set here unless the caller set them.
E=${E:-experiments/issue27_search}
T=${T:-../shared/teams/gen9vgc2023regc}
PY=${PY:-.venv/bin/python}
cell() { # NAME P1 P2 ARGS...
  local name=$1 p1=$2 p2=$3; shift 3
  $PY -m tools.battle --p1 "$p1" --p2 "$p2" -n 200 --servers 2 "$@" | tail -1 > $E/$name.json
  $PY -c "import json; d=json.load(open('$E/$name.json')); print('$name', d['p1_win_rate'], d['ci95'], 'errors', d['showdown_errors'], 'unfinished', d['unfinished'], d.get('p1_search'), d['wall_s'])"
}
