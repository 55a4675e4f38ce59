"""How often a decision's damage call repeats one made before (issue 31: would a memo of
the damage formula pay?). Replays the recorded battles of tests/data in order, snapshots
each decision as experiments/issue31_vectorise does, records every call the analysis
makes to ``damage`` with everything the formula reads (both Fighters' fields, the move,
the field, spread, tera), and counts the calls whose inputs were seen before in the
whole replay (a process-wide memo's best case). Prints JSON.

    python experiments/issue31_memo_probes/damage_repeats.py
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "issue31_vectorise"))

import bench  # noqa: E402

from league.battle import analysis as A  # noqa: E402
from league.battle.context import make_decision  # noqa: E402
from league.battle.fighter import Fighter  # noqa: E402

FIELDS = [f.name for f in dataclasses.fields(Fighter)]


def key(f: Fighter | None):
    if f is None:
        return None
    out = []
    for n in FIELDS:
        x = getattr(f, n)
        if n == "boosts":
            x = tuple(sorted(x.items()))
        elif n == "status" and x is not None:
            x = x.value
        out.append(x)
    return tuple(out)


def main() -> None:
    snaps = bench.snapshots()
    calls = []
    orig = A.damage

    def rec(att, mi, dfn, env, spread=False, tera=False):
        calls.append((key(att), mi.id, key(dfn), env, spread, tera))
        return orig(att, mi, dfn, env, spread=spread, tera=tera)

    A.damage = rec
    for b, ctx in snaps:
        make_decision(b, ctx)
    A.damage = orig
    seen, repeats = set(), 0
    for c in calls:
        repeats += c in seen
        seen.add(c)
    print(
        json.dumps(
            {
                "decisions": len(snaps),
                "damage_calls": len(calls),
                "repeats": repeats,
                "repeat_share": round(repeats / len(calls), 4),
            }
        )
    )


if __name__ == "__main__":
    main()
