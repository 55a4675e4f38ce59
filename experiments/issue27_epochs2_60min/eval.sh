#!/usr/bin/env bash
# The evaluation of a 60-minute default hour with learner.epochs=2 (two gradient steps per
# batch, never run as an hour before), alone on
# the box after it ended, on the 238 shared Reg C teams it never trained on: vs maxdamage
# 1,200 games greedy (tools.battle seeds 0-5) and 600 sampling (seeds 0-2), vs random 200,
# head to head vs the shipped agent:regc 600 greedy (seeds 0-2); the snapshots' round
# robin (every second snapshot, 20 games a pair); the curves.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-outputs/epochs2_1206}
E=${E:-experiments/issue27_epochs2_60min}
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
# every second snapshot (48 were frozen: a full round robin would be ~25,000 games), 20 games a pair
SNAPS=$(ls $R/league/past-*.pt | sort | awk 'NR % 2 == 1')
# shellcheck disable=SC2086
$PY -m tools.tournament $SNAPS --baselines random,maxdamage -n 20 --teams $T --out $E/tournament > $E/tournament.log
$PY -m tools.plot_run $R --out $E > /dev/null
