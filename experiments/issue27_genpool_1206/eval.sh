#!/usr/bin/env bash
# The evaluation of a 60-minute default hour with 300 generated teams in its pool
# (`python -m league.run showdown.generated_teams=300`), alone on the box after it ended:
# the last default hour's evaluation (experiments/issue27_regc_1205/eval.sh: on the 238
# shared Reg C teams it never trained on, vs maxdamage 1,200 greedy and 600 sampling, vs
# random 200, head to head vs agent:regc 600 greedy; the snapshots' round robin; the
# curves), on this run, written here.
set -euo pipefail
cd "$(dirname "$0")/../.."
R=${R:-outputs/regc_gen_1206} E=experiments/issue27_genpool_1206 exec experiments/issue27_regc_1205/eval.sh
