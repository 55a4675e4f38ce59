"""Measurement only (issue 31): the live hit rate of league.battle.actions' joint-mask
table. On PYTHONPATH, every Python process of a run (the simulator included) wraps
``joint_mask`` as league.battle.context calls it and writes its counts every 2,000 calls
to /tmp/maskprobe/stats_PID.json:

    mkdir -p /tmp/maskprobe
    PYTHONPATH=experiments/issue31_forced/maskprobe python -m league.run run.max_minutes=3 hydra.run.dir=/tmp/probe1
"""

from __future__ import annotations

import json
import os

import league.battle.context as C
from league.battle import actions as A

_orig = A.joint_mask
_n = {"calls": 0, "hits": 0}


def joint_mask(view, foe_alive=(True, True)):
    l0, l1 = A.slot_legal(view, 0, foe_alive), A.slot_legal(view, 1, foe_alive)
    forced = -1
    if view.kind == "switch" and not any(view.side[i].get("reviving") for i in range(min(2, len(view.side)))):
        forced = A._forced_switches(view)
    _n["calls"] += 1
    _n["hits"] += (l0, l1, forced) in A._JOINT_MASKS
    if _n["calls"] % 2000 == 0:
        with open(f"/tmp/maskprobe/stats_{os.getpid()}.json", "w") as f:
            json.dump({**_n, "size": len(A._JOINT_MASKS)}, f)
    return _orig(view, foe_alive)


C.joint_mask = joint_mask
