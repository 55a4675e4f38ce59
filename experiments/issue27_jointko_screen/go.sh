#!/usr/bin/env bash
# Issue 27: the joint KO term (model.joint_ko=true: what the two slots' orders do together
# to the foes, league/model/net.py joint_ko_features) on today's reg_c. Two seeds side by
# side, 2,500 updates each, then 600 greedy + 600 sampling games each vs maxdamage on the
# 238 shared Reg C teams (tools.battle seeds 0-2), the cells of the base's screens
# (issue27_soft_targets, issue27_dualclip_screen). Run from the repository root.
set -u
experiments/issue27_screen/run.sh runs/jointko 2500 0 jko_s0='model.joint_ko=true' &
experiments/issue27_screen/run.sh runs/jointko 2500 1 jko_s1='model.joint_ko=true' &
wait
for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh runs/jointko/jko_s0 runs/jointko/jko_s1; done
# a third seed, alone (the first two read +0.07 and -0.01 greedy against the base's same seeds)
experiments/issue27_screen/run.sh runs/jointko 2500 2 jko_s2='model.joint_ko=true'
for m in greedy sampling; do MODE=$m experiments/issue27_credit_screen/more_games.sh runs/jointko/jko_s2; done
