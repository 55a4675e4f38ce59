#!/usr/bin/env bash
# The fourth lease's network (final_net.pt: the GPU reg_c's final policy after 3,678
# updates, tools.export --fp32, not in git: outputs/gpu_h100_1205/) evaluated on the 2-core
# box, alone, on the 238 shared Reg C teams it never trained on; beside it the CPU hour
# of experiments/issue27_regc_1205 frozen at a like number of updates (its snapshot
# past-0013, update 3,800; not in git). vs maxdamage 1,200 greedy (seeds 0-5) and 600
# sampling (seeds 0-2) each; vs random 200 greedy; head to head 600 greedy (seeds 0-2).
set -euo pipefail
cd "$(dirname "$0")/../../.."
E=experiments/gpu/h100_run4
G=${G:-outputs/gpu_h100_1205/final_net.pt}
C=${C:-outputs/regc_1205/league/past-0013.pt}
T=../shared/teams/gen9vgc2023regc
PY=.venv/bin/python
cell() { # NAME P1 P2 ARGS...
  local name=$1 p1=$2 p2=$3; shift 3
  $PY -m tools.battle --p1 "$p1" --p2 "$p2" -n 200 --teams $T "$@" | tail -1 > $E/eval_$name.json
  $PY -c "import json; d=json.load(open('$E/eval_$name.json')); print('$name', d['p1_win_rate'], d['ci95'], 'errors', d['showdown_errors'], 'unfinished', d['unfinished'])"
}
for s in 0 1 2 3 4 5; do cell gpu_maxdamage_greedy_s$s "checkpoint:$G" maxdamage --greedy --seed $s; done
for s in 0 1 2 3 4 5; do cell cpu3800_maxdamage_greedy_s$s "checkpoint:$C" maxdamage --greedy --seed $s; done
for s in 0 1 2; do cell gpu_maxdamage_sampling_s$s "checkpoint:$G" maxdamage --seed $s; done
for s in 0 1 2; do cell cpu3800_maxdamage_sampling_s$s "checkpoint:$C" maxdamage --seed $s; done
cell gpu_random_greedy "checkpoint:$G" random --greedy
for s in 0 1 2; do cell gpu_vs_cpu3800_greedy_s$s "checkpoint:$G" "checkpoint:$C" --greedy --seed $s; done
