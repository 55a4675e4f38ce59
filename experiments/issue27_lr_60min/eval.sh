#!/usr/bin/env bash
# Issue 27: the default hour with learner.lr=1e-4 (the best-response probe's slower rate that
# kept Protect and status play alive), evaluated alone on the box after it ended, on the 238
# shared Reg C teams it never trained on. Run from the repository root (the run: a clone
# of main at 0e1ca93; this evaluation: main at d8d24b0, the run's directory as argument):
#   python -m league.run learner.lr=1e-4 hydra.run.dir=outputs/lr1e4_60min run.console=plain
#   bash experiments/issue27_lr_60min/eval.sh outputs/lr1e4_60min
set -euo pipefail
R=${1:-outputs/lr1e4_60min}
E=experiments/issue27_lr_60min
C=$(ls $R/checkpoints/ckpt_*.pt | tail -1)
T=../shared/teams/gen9vgc2023regc
PY=.venv/bin/python
echo "final checkpoint: $C"
$PY -m tools.battle --p1 checkpoint:$C --p2 maxdamage -n 200 --servers 2 --teams $T --greedy > $E/battle_maxdamage_greedy.json
$PY -m tools.battle --p1 checkpoint:$C --p2 maxdamage -n 200 --servers 2 --teams $T > $E/battle_maxdamage_sampling.json
$PY -m tools.battle --p1 checkpoint:$C --p2 random -n 200 --servers 2 --teams $T --greedy > $E/battle_random_greedy.json
$PY -m tools.battle --p1 checkpoint:$C --p2 agent:regc -n 200 --servers 2 --teams $T --greedy > $E/battle_regc_greedy.json
# the snapshots of the main agent, round robin, 20 battles a pair, on the shared teams
$PY -m tools.tournament $R -n 20 --teams $T --out $E/tournament > $E/tournament.log
$PY -m tools.plot_run $R --out $E > /dev/null
