#!/usr/bin/env bash
# The evaluation of the 2026-12-05 reg_mb hour, alone on the box after it: the 2026-12-02
# hour's script (1,200 greedy games vs maxdamage on seeds 0-5, 200 sampling, 200 vs random,
# 600 head to head vs the shipped agent:regmb, the curves) on this run.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=outputs/issue28_regmb_1205 E=experiments/issue28_regmb_1205 experiments/issue28_regmb_1202/eval.sh
