#!/usr/bin/env bash
# Issue 31's hour after the cuts (sim.compile on, the encoder cut), issue 27's must-show
# run of today's default: `python -m league.run` with no override, then this, alone on the
# box, on the 238 shared Reg C teams the run never trained on. Run from the repository root:
#   python -m league.run hydra.run.dir=outputs/regc_60min run.console=plain
#   bash experiments/issue31_regc_60min/eval.sh outputs/regc_60min
set -euo pipefail
R=${1:-outputs/regc_60min}
E=experiments/issue31_regc_60min
C=$(ls $R/checkpoints/ckpt_*.pt | tail -1)
T=../shared/teams/gen9vgc2023regc
PY=${PY:-.venv/bin/python}
echo "final checkpoint: $C"
cell() { # NAME P2 [--greedy] [--seed S]
  local name=$1 p2=$2; shift 2
  $PY -m tools.battle --p1 "checkpoint:$P1" --p2 "$p2" -n 200 --servers 2 --teams $T "$@" --out "$R/battles/$name" | tail -1 > $E/$name.json
  python3 -c "import json; d=json.load(open('$E/$name.json')); print('$name', d['p1_win_rate'], d['ci95'], 'errors', d['showdown_errors'], 'unfinished', d['unfinished'])"
}
P1=$C
cell battle_maxdamage_greedy maxdamage --greedy
cell battle_maxdamage_sampling maxdamage
cell battle_random_greedy random --greedy
cell battle_regc_greedy agent:regc --greedy
cell battle_regc_sampling agent:regc
# the learner's target (EMA) weights against the online ones, the same team draws (seeds 1, 2 added)
$PY -m tools.export "$C" $R/target.pt --weights target --fp32 > /dev/null
for s in 1 2; do cell online_maxdamage_greedy_s$s maxdamage --greedy --seed $s; done
P1=$R/target.pt
for s in 0 1 2; do cell target_maxdamage_greedy_s$s maxdamage --greedy --seed $s; done
# the snapshots of the main agent, round robin, 20 battles a pair, on the shared teams
$PY -m tools.tournament $R -n 20 --teams $T --out $E/tournament > $E/tournament.log
$PY -m tools.plot_run $R --out $E > /dev/null
