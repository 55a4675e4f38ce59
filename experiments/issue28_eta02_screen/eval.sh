#!/bin/sh
# Each screen's final checkpoint (its online weights, and the learner's target (EMA) weights):
# 600 games greedy (tools.battle seeds 0-2) and 400 sampling (seeds 0-1) vs maxdamage on the
# 400 shared Reg M-B teams, none trained on: the seeds and cells of
# experiments/issue28_genpool_screen/eval.sh, whose base_* files are the comparison.
cd "$(dirname "$0")/../.."
F=gen9championsvgc2026regmb; T=../shared/teams/$F; E=experiments/issue28_eta02_screen
ck() { .venv/bin/python -c "import json,sys; print(json.load(open(sys.argv[1]))['checkpoint'])" $1/summary.json; }
for s in ${SEEDS:-0 1}; do
  C=$(ck outputs/mbeta02_s$s)
  .venv/bin/python -m tools.export "$C" outputs/mbeta02_s$s/target.pt --weights target --fp32 > /dev/null
  for g in 0 1 2; do
    .venv/bin/python -m tools.battle --p1 checkpoint:$C --p2 maxdamage -n 200 --format $F --teams $T --greedy --seed $g \
      | tail -1 > $E/eta02_s${s}_greedy_s$g.json
    .venv/bin/python -m tools.battle --p1 checkpoint:outputs/mbeta02_s$s/target.pt --p2 maxdamage -n 200 --format $F \
      --teams $T --greedy --seed $g | tail -1 > $E/eta02_s${s}_target_greedy_s$g.json
  done
  for g in 0 1; do
    .venv/bin/python -m tools.battle --p1 checkpoint:$C --p2 maxdamage -n 200 --format $F --teams $T --seed $g \
      | tail -1 > $E/eta02_s${s}_sampling_s$g.json
  done
done
