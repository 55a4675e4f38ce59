#!/bin/bash
# issue27_decisive_clone: see README.md
cd /work/main
PY=.venv/bin/python; E=experiments/issue27_decisive_clone; R=runs/decisive_clone; T=../shared/teams/gen9vgc2023regc
for m in clone control; do
  for s in 0 1 2 3; do
    $PY -m tools.battle --p1 checkpoint:$R/$m/bc.pt --p2 maxdamage --greedy -n 200 --servers 2 --out $R/battle_${m}_s$s --teams $T --open-team-sheets --seed $s 2>/dev/null | tail -1 > $E/${m}_vs_maxdamage_greedy_s$s.json
  done
  $PY experiments/issue27_screen/pool.py $E/${m}_vs_maxdamage_greedy_s*.json | tail -1
done
for n in agent_regc clone control; do
  m=$R/$n/bc.pt; [ $n = agent_regc ] && m=league/agents/regc.pt
  $PY -m tools.bc eval $m $R/heldout_logs --policies search 2>/dev/null | tail -1 > $E/eval_heldout_$n.json
  cat $E/eval_heldout_$n.json; echo
done
