"""µs a decision of ``make_decision`` (threat block off, as the default network) on the
recorded battles, best of 7 passes; asserts our modules run compiled.

    python experiments/issue31_micro_probes/decision_us.py
"""

import sys
import time

sys.path.insert(0, "experiments/issue31_vectorise")  # run from the repository root
import bench

from league import accel
from league.battle.context import make_decision

assert all(accel.loaded().get(m) for m in accel.MODULES if m in sys.modules)
snaps = bench.snapshots()
best = 1e9
for _ in range(7):
    t0 = time.thread_time()
    for b, c in snaps:
        make_decision(b, c, threat=False)
    best = min(best, time.thread_time() - t0)
print(round(best / len(snaps) * 1e6, 1))
