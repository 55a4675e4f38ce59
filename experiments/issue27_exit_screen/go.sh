#!/usr/bin/env bash
# Issue 27: expert iteration (search targets) and a clone of the search player. Run from the repository root.
set -u
# 1. two settings of sim.search_share, seed 0, 2,500 updates each, then 600 greedy + 600
#    sampling games vs maxdamage on the 238 shared Reg C teams (the issue-27 screen's cells)
experiments/issue27_screen/run.sh runs/exit_screen 2500 0 exit20_s0='sim.search_share=0.2'
experiments/issue27_screen/run.sh runs/exit_screen 2500 0 exit10k16_s0='sim.search_share=0.1 sim.search_k=16 sim.search_samples=2'
for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh runs/exit_screen/exit20_s0 runs/exit_screen/exit10k16_s0; done
# 2. a clone of the search player: 3,000 battles search:agent:regc vs maxdamage on the 12 shipped teams
python -m tools.bc generate -n 3000 --out runs/bcsearch/logs --concurrency 32 --p1 search:agent:regc --p2 maxdamage
python -m tools.bc train runs/bcsearch/logs --out runs/bcsearch/bc --epochs 5 --imitate search
for s in 0 1 2; do
  python -m tools.battle --p1 checkpoint:runs/bcsearch/bc/bc.pt --p2 maxdamage -n 200 --teams ../shared/teams/gen9vgc2023regc --greedy --seed $s
done
python -m tools.battle --p1 checkpoint:runs/bcsearch/bc/bc.pt --p2 maxdamage -n 200 --teams ../shared/teams/gen9vgc2023regc --seed 0
# 3. how often the look-ahead repeats its own pick (two independent searches per move request)
python experiments/issue27_exit_screen/consistency.py -n 100 --k 16 --samples 2
python experiments/issue27_exit_screen/consistency.py -n 60 --k 8 --samples 1
python experiments/issue27_exit_screen/consistency.py -n 40 --k 16 --samples 8
python -m tools.plot_run runs/exit_screen/exit20_s0 runs/exit_screen/exit10k16_s0 --labels exit20_k8s1,exit10_k16s2 --out experiments/issue27_exit_screen
