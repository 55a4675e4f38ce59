#!/bin/sh
# Each screen's final checkpoint and each hour's update-2,600 snapshot (past-0009; their
# run dirs under outputs/ are not in git): 600 games greedy (tools.battle seeds 0-2) and 400
# sampling (seeds 0-1) vs maxdamage on the 400 shared Reg M-B teams, none trained on.
cd "$(dirname "$0")/../.."
F=gen9championsvgc2026regmb; T=../shared/teams/$F; E=experiments/issue28_genpool_screen
ck() { .venv/bin/python -c "import json,sys; print(json.load(open(sys.argv[1]))['checkpoint'])" $1/summary.json; }
for job in "gen_s0 $(ck outputs/mbgen_s0)" "gen_s1 $(ck outputs/mbgen_s1)" \
           "base_s0 outputs/issue28_regmb_default_1205/league/past-0009.pt" \
           "base_s1 outputs/issue28_regmb_eta01k_1205/league/past-0009.pt"; do
  set -- $job
  for s in 0 1 2; do
    .venv/bin/python -m tools.battle --p1 checkpoint:$2 --p2 maxdamage -n 200 --format $F --teams $T --greedy --seed $s \
      | tail -1 > $E/$1_greedy_s$s.json
  done
  for s in 0 1; do
    .venv/bin/python -m tools.battle --p1 checkpoint:$2 --p2 maxdamage -n 200 --format $F --teams $T --seed $s \
      | tail -1 > $E/$1_sampling_s$s.json
  done
done
