#!/usr/bin/env bash
# Issue 27 item 4, as a screen: three regimes from scratch, the same code and seed, run side
# by side for the same wall time, each in its own session (its own CPU autogroup: the
# kernel gives each regime an equal share of the box, whatever its process count):
#   a_selfplay  the main agent vs its latest self and its past snapshots only
#   b_reg_c     today's reg_c (the curriculum: self, past, exploiters, the fixed baselines)
#   c_league    reg_c plus main exploiters, a league exploiter and portfolio R-NaD (Nash)
# then each final checkpoint vs maxdamage and random on the 238 shared teams it never
# trained on (200 games, greedy and sampling) and the round robin of the three finals.
# usage: experiments/issue27_regimes/run.sh OUTDIR MINUTES
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:?outdir}; MIN=${2:?minutes}
E=experiments/issue27_regimes
PY=.venv/bin/python
T=../shared/teams/gen9vgc2023regc
declare -A OVER=(
  [a_selfplay]="league.sampler.base.self=0.67 league.sampler.base.past=0.33 league.sampler.base.exploiters=0 league.sampler.base.fixed=0"
  [b_reg_c]=""
  [c_league]="league.exploiters.enabled=true league.exploiters.first_after=300 league.exploiters.every_updates=500 league.exploiters.train_updates=300 league.exploiters.eval_games=40 league.league_exploiters.enabled=true learner.portfolio.size=3 learner.portfolio.strategy=nash"
)
mkdir -p "$OUT"
pids=()
for name in a_selfplay b_reg_c c_league; do
  # shellcheck disable=SC2086
  setsid $PY -m league.run experiment=reg_c run.max_minutes="$MIN" run.seed=0 \
      hydra.run.dir="$OUT/$name" ${OVER[$name]} > "$OUT/$name.console.log" 2>&1 &
  pids+=($!)
done
wait "${pids[@]}"
final() { python3 -c "import json; print(json.load(open('$OUT/$1/summary.json'))['checkpoint'])"; }
for name in a_selfplay b_reg_c c_league; do
  c=$(final $name)
  for opp in maxdamage random; do
    $PY -m tools.battle --p1 "checkpoint:$c" --p2 $opp -n 200 --teams $T --greedy | tail -1 > $E/${name}_vs_${opp}_greedy.json
    $PY -m tools.battle --p1 "checkpoint:$c" --p2 $opp -n 200 --teams $T | tail -1 > $E/${name}_vs_${opp}_sampling.json
  done
done
for pair in "a_selfplay b_reg_c" "a_selfplay c_league" "b_reg_c c_league"; do
  set -- $pair
  $PY -m tools.battle --p1 "checkpoint:$(final $1)" --p2 "checkpoint:$(final $2)" -n 200 --teams $T --greedy | tail -1 > $E/$1_vs_$2_greedy.json
  $PY -m tools.battle --p1 "checkpoint:$(final $1)" --p2 "checkpoint:$(final $2)" -n 200 --teams $T | tail -1 > $E/$1_vs_$2_sampling.json
done
for name in a_selfplay b_reg_c c_league; do
  cp "$OUT/$name/summary.json" $E/${name}_summary.json
  cp "$OUT/$name/.hydra/config.yaml" $E/${name}_config.yaml 2>/dev/null || true
done
