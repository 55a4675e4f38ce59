"""Which plain-Python functions one decision calls, and how often (issue 31, item 1).

Replays the recorded battles of tests/data (356 decisions, experiments/issue31_vectorise's
snapshots), runs ``make_decision`` on each three times under cProfile, and prints the
Python-level callees sorted by their own time. With the decision's modules compiled
(league/accel) cProfile sees only what they call that is still Python: poke-env's
properties and the enum module. Call counts are exact and do not depend on the box;
times under cProfile are inflated.

    python experiments/issue31_decision_calls/calls.py            # compiled
    LEAGUE_ACCEL=0 python experiments/issue31_decision_calls/calls.py
"""

from __future__ import annotations

import cProfile
import pstats
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "issue31_vectorise"))

import bench  # noqa: E402  (experiments/issue31_vectorise/bench.py: the snapshots)

from league.battle.context import make_decision  # noqa: E402


def main() -> None:
    snaps = bench.snapshots()
    for b, ctx in snaps:
        make_decision(b, ctx)
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(3):
        for b, ctx in snaps:
            make_decision(b, ctx)
    pr.disable()
    print(f"{3 * len(snaps)} decisions")
    pstats.Stats(pr).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
