"""python experiments/issue27_heuristic/ablate.py NAME=VALUE ... -- tools.battle arguments

tools.battle with some of league/players/heuristic.py's constants set (one rule off)."""

import sys

import league.players.heuristic as h
import tools.battle

i = sys.argv.index("--")
for kv in sys.argv[1:i]:
    k, v = kv.split("=")
    if not hasattr(h, k):
        raise SystemExit(f"league.players.heuristic has no constant {k}")
    setattr(h, k, float(v))
tools.battle.main(sys.argv[i + 1 :])
