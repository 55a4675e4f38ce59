"""Inclusive shares of the frames under one thread's root in a py-spy raw (folded) profile.

    py-spy record --native -p PID -d 60 -r 200 -f raw -o sim.folded
    python experiments/issue31_infer_rnn/fold.py sim.folded run_simulator 80
"""

import collections
import re
import sys

root = sys.argv[2]
incl: collections.Counter = collections.Counter()
tot = 0
for line in open(sys.argv[1]):
    stack, _, n = line.rstrip().rpartition(" ")
    frames = stack.split(";")
    if not any(root in f for f in frames):
        continue
    tot += int(n)
    seen = set()
    for f in frames:
        k = re.sub(r" \((.*?):\d+\)$", r" (\1)", f)  # frames by function, not line
        if k not in seen:
            incl[k] += int(n)
            seen.add(k)
print("samples", tot)
for f, n in incl.most_common(int(sys.argv[3])):
    print(f"{100 * n / tot:6.2f} {f[:140]}")
