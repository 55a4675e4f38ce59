#!/bin/bash
cd "$(dirname "$0")/../../.."
mkdir -p runs/probe
run() { name=$1; shift; .venv/bin/python -m league.run experiment=reg_c run.max_updates=600 run.max_minutes=600 run.seed=0 hydra.run.dir=runs/probe/$name "$@" > runs/probe/$name.console.log 2>&1; }
run base &
run eta01 learner.rnad.eta=0.1 'learner.schedule_sizes=[1000]' &
run ent03 learner.rnad.entropy_coef=0.03 &
wait
