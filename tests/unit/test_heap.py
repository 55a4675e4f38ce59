"""league/heap.py: the garbage collector settled once per process, in a fresh interpreter
(a freeze in the test process would outlive the test)."""

from __future__ import annotations

import json
import subprocess
import sys

PROBE = r"""
import gc, json, weakref
from league import heap

class Node:
    pass

def cycle():
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)

before = cycle()  # garbage already when settle() runs: its collection takes it
default = gc.get_threshold()
first, second = heap.settle(), heap.settle()
after_settle = before() is None
frozen = gc.get_freeze_count()
clock0 = heap.gc_cpu_s()
later = cycle()  # garbage made after settle(): still collected
gc.collect()
print(json.dumps({
    "default": default, "threshold": gc.get_threshold(), "first": first, "second": second,
    "before_collected": after_settle, "frozen": frozen, "later_collected": later() is None,
    "clock0": clock0, "clock1": heap.gc_cpu_s(), "young": heap.YOUNG,
}))
"""


def test_settle_freezes_start_up_raises_the_young_threshold_and_still_collects_cycles():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["default"][0] == 700  # CPython's, before
    assert r["first"] is True and r["second"] is False  # once per process
    assert r["threshold"] == [r["young"], *r["default"][1:]]
    assert r["frozen"] > 1000  # the interpreter's and league's objects
    assert r["before_collected"] and r["later_collected"]
    assert r["clock0"] == 0.0 and r["clock1"] > 0.0  # settle's own collection ran before the clock
