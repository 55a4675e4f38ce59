#!/usr/bin/env bash
# The evaluation of a fresh 60-minute default hour (`python -m league.run`, reg_c with the
# narrow network and v-trace's rho-bar 1, never run together for an hour before), alone on
# the box after it ended, on the 238 shared Reg C teams it never trained on: vs maxdamage
# 1,200 games greedy (tools.battle seeds 0-5) and 600 sampling (seeds 0-2), vs random 200,
# head to head vs the shipped agent:regc 600 greedy (seeds 0-2); the snapshots' round
# robin (20 games a pair); the curves.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-outputs/regc_1205}
E=${E:-experiments/issue27_regc_1205}
C=$(.venv/bin/python -c "import json,sys; print(json.load(open(sys.argv[1]))['checkpoint'])" $R/summary.json)
T=../shared/teams/gen9vgc2023regc
PY=.venv/bin/python
echo "final checkpoint: $C"
cell() { # NAME P2 ARGS...
  local name=$1 p2=$2; shift 2
  $PY -m tools.battle --p1 "checkpoint:$C" --p2 "$p2" -n 200 --teams $T "$@" | tail -1 > $E/$name.json
  $PY -c "import json; d=json.load(open('$E/$name.json')); print('$name', d['p1_win_rate'], d['ci95'], 'errors', d['showdown_errors'], 'unfinished', d['unfinished'])"
}
for s in 0 1 2 3 4 5; do cell maxdamage_greedy_s$s maxdamage --greedy --seed $s; done
for s in 0 1 2; do cell maxdamage_sampling_s$s maxdamage --seed $s; done
cell random_greedy random --greedy
for s in 0 1 2; do cell vs_regc_greedy_s$s agent:regc --greedy --seed $s; done
$PY -m tools.tournament $R -n 20 --teams $T --out $E/tournament > $E/tournament.log
$PY -m tools.plot_run $R --out $E > /dev/null
