"""The legality masks' cost over recorded battles (issue 31, commit 8c53ddd).

    python -m tools.bench encode --battles 40 --repeat 1 --save /tmp/rec.json   # 40 random battles, both sides
    python experiments/issue31_gc/maskbench.py /tmp/rec.json

Prints a digest of every joint mask (it must not change with a speed cut) and the median
over 7 passes of the microseconds a ``joint_mask`` takes. 2026-11-28, three runs each:
19.5 / 19.7 / 20.5 us at 8c53ddd, 26.0 / 26.0 / 25.1 us before it (same digest)."""

from __future__ import annotations

import hashlib
import json
import statistics
import sys
import time

import numpy as np

from league.battle.actions import joint_mask
from league.battle.context import foe_alive
from league.battle.replay import replay


def main(path: str) -> None:
    items, digest = [], []
    for username, lines in json.load(open(path)):
        for battle, ctx in replay(lines, username):
            view = ctx.view(battle)
            if view.kind in ("move", "switch"):
                alive = foe_alive(battle)
                items.append((view, alive))
                digest.append(np.packbits(joint_mask(view, alive)).tobytes())
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        for view, alive in items:
            joint_mask(view, alive)
        times.append((time.perf_counter() - t0) / len(items) * 1e6)
    print(
        json.dumps(
            {
                "decisions": len(items),
                "digest": hashlib.sha1(b"".join(digest)).hexdigest()[:12],
                "joint_mask_us_median": round(statistics.median(times), 2),
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1])
