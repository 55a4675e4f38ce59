#!/bin/sh
cd "$(dirname "$0")/../.."   # the members: league/agents/regmb.pt and two hours under outputs/ (not in git)
F=gen9championsvgc2026regmb; T=../shared/teams/$F
export ENSEMBLE=league/agents/regmb.pt,outputs/issue28_regmb_eta01k_1205/checkpoints/ckpt_000011667.pt,outputs/issue28_regmb_default_1205/checkpoints/ckpt_000012101.pt
for seed in 0 1 2 3 4 5; do
  .venv/bin/python experiments/issue28_ensemble/ensemble.py --p1 agent:regmb --p2 maxdamage -n 200 --format $F --teams $T --greedy --seed $seed --out runs/ensemble/o$seed 2>/dev/null | tail -1 > experiments/issue28_ensemble/e3_s$seed.json
done
