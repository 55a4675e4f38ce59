#!/usr/bin/env bash
# Issue 27: search targets drawn with MPO's weighting (sim.search_tau) instead of the
# look-ahead's argmax. Run from the repository root.
set -u
# seed 0, 2,500 updates, then 600 greedy + 600 sampling games vs maxdamage on the 238
# shared Reg C teams: the cells of experiments/issue27_exit_screen, with the pick drawn
experiments/issue27_screen/run.sh runs/exit_soft 2500 0 soft20_s0='sim.search_share=0.2 sim.search_tau=0.05'
for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh runs/exit_soft/soft20_s0; done
# the same seed with no search (today's reg_c), for the same session's comparison
experiments/issue27_screen/run.sh runs/exit_soft 2500 0 base_s0=''
for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh runs/exit_soft/base_s0; done
# the look-ahead's pick played on the searched requests, learned as experience only (no cross-entropy)
experiments/issue27_screen/run.sh runs/exit_soft 2500 0 play20_s0='sim.search_share=0.2 sim.search_play=true learner.search_coef=0'
for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh runs/exit_soft/play20_s0; done
# a second seed of the base and of play20, side by side
experiments/issue27_screen/run.sh runs/exit_soft 2500 1 base_s1='' play20_s1='sim.search_share=0.2 sim.search_play=true learner.search_coef=0'
for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh runs/exit_soft/base_s1 runs/exit_soft/play20_s1; done
# a third seed, the same way
experiments/issue27_screen/run.sh runs/exit_soft 2500 2 base_s2='' play20_s2='sim.search_share=0.2 sim.search_play=true learner.search_coef=0'
for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh runs/exit_soft/base_s2 runs/exit_soft/play20_s2; done
# weight averaging: the mean of the 12-05 hour's last ten snapshots (updates 7,800-12,200), 600 greedy + 200 sampling
L=outputs/regc_1205/league; T=../shared/teams/gen9vgc2023regc
python experiments/issue27_soft_targets/weight_average.py runs/swa_last10.pt $(for i in $(seq 21 30); do echo $L/past-00$i.pt; done)
for s in 0 1 2; do python -m tools.battle --p1 checkpoint:runs/swa_last10.pt --p2 maxdamage -n 200 --teams $T --greedy --seed $s; done
python -m tools.battle --p1 checkpoint:runs/swa_last10.pt --p2 maxdamage -n 200 --teams $T --seed 0
python -m tools.plot_run runs/exit_soft/base_s0 runs/exit_soft/soft20_s0 runs/exit_soft/play20_s0 runs/exit_soft/base_s1 runs/exit_soft/play20_s1 runs/exit_soft/base_s2 runs/exit_soft/play20_s2 --labels base_s0,soft20_s0,play20_s0,base_s1,play20_s1,base_s2,play20_s2 --out experiments/issue27_soft_targets
