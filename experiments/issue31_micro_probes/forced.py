"""The recorded battles' decisions by kind and by how many legal actions they have
(one: a forced choice).

    python experiments/issue31_micro_probes/forced.py
"""

import sys

sys.path.insert(0, "experiments/issue31_vectorise")  # run from the repository root
import collections

import bench

from league.battle.context import make_decision

snaps = bench.snapshots()
c = collections.Counter()
for b, ctx in snaps:
    d = make_decision(b, ctx)
    if d is None:
        c["none"] += 1
        continue
    n = int(d.mask.sum())
    c[(d.kind, d.view.kind, "one" if n == 1 else ("few" if n <= 4 else "many"))] += 1
print(c)
