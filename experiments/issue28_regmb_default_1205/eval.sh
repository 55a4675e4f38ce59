#!/usr/bin/env bash
# Its evaluation, alone on the box after the hour: experiments/issue28_regmb_1202/eval.sh
# (1,200 greedy games vs maxdamage on seeds 0-5, 200 sampling, 200 vs random, 600 head to
# head vs the shipped agent:regmb, the curves) on this run.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=outputs/issue28_regmb_default_1205 E=experiments/issue28_regmb_default_1205 experiments/issue28_regmb_1202/eval.sh
