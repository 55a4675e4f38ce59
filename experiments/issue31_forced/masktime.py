"""Per-call cost of the joint mask on the recorded turns (issue 31): warm (the table as
the passes leave it) and cold (cleared before each pass). Run with the tree to time as
the first argument and on PYTHONPATH, e.g. a worktree of 5dd70f0 against main:

    PYTHONPATH=/tmp/base .venv/bin/python experiments/issue31_forced/masktime.py /tmp/base
    .venv/bin/python experiments/issue31_forced/masktime.py .
"""

from __future__ import annotations

import json
import sys
import time

sys.path.insert(0, sys.argv[1] + "/experiments/issue31_vectorise")

import bench  # noqa: E402

from league.battle import actions as A  # noqa: E402
from league.battle.context import foe_alive  # noqa: E402

snaps = bench.snapshots()
views = [(v, foe_alive(b)) for b, ctx in snaps for v in [ctx.view(b)] if v.kind in ("move", "switch")]


def run(clear: bool) -> float:
    best = 1e9
    for _ in range(9):
        if clear and hasattr(A, "_JOINT_MASKS"):
            A._JOINT_MASKS.clear()
        t0 = time.thread_time()
        for v, fa in views:
            A.joint_mask(v, fa)
        best = min(best, time.thread_time() - t0)
    return round(1e6 * best / len(views), 2)


print(
    json.dumps(
        {
            "tree": sys.argv[1],
            "actions_file": A.__file__,
            "turns": len(views),
            "warm_us": run(False),
            "cold_us": run(True),
        }
    )
)
