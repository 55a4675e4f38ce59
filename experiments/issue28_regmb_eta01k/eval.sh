#!/usr/bin/env bash
# The evaluation of the 60-minute reg_mb run with learner.rnad.eta=0.1 and
# learner.schedule_sizes=[1000] (issue 28), alone on the box after it ended: the final
# checkpoint on the 400 shared Reg M-B teams it never trained on, vs maxdamage 600 games
# greedy (tools.battle seeds 0, 1, 2) and 200 sampling, vs random and the shipped
# agent:regmb 200 each; on its 12 training teams vs maxdamage; the curves.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-outputs/issue28_regmb_eta01k}
E=experiments/issue28_regmb_eta01k
C=$(ls $R/checkpoints/ckpt_*.pt | tail -1)
F=gen9championsvgc2026regmb
T=../shared/teams/$F
PY=.venv/bin/python
echo "final checkpoint: $C"
for seed in 0 1 2; do
  $PY -m tools.battle --p1 checkpoint:$C --p2 maxdamage -n 200 --servers 2 --format $F --teams $T --greedy --seed $seed \
      > $E/battle_maxdamage_greedy_s$seed.json
done
$PY -m tools.battle --p1 checkpoint:$C --p2 maxdamage -n 200 --servers 2 --format $F --teams $T > $E/battle_maxdamage_sampling.json
$PY -m tools.battle --p1 checkpoint:$C --p2 random -n 200 --servers 2 --format $F --teams $T --greedy > $E/battle_random_greedy.json
$PY -m tools.battle --p1 checkpoint:$C --p2 agent:regmb -n 200 --servers 2 --format $F --teams $T --greedy > $E/battle_regmb_greedy.json
# on the 12 teams it trained on (the shipped pool), for the gap between seen and unseen teams
$PY -m tools.battle --p1 checkpoint:$C --p2 maxdamage -n 200 --servers 2 --format $F --greedy > $E/battle_maxdamage_greedy_trainteams.json
$PY -m tools.plot_run $R --out $E > /dev/null
