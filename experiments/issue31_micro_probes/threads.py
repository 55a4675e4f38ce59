"""CPU seconds of each thread of a process over a window, from /proc (Linux).

python experiments/issue31_micro_probes/threads.py PID SECONDS
"""

import os
import sys
import time

pid = int(sys.argv[1])
dt = float(sys.argv[2])


def snap():
    d = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            st = open(f"/proc/{pid}/task/{tid}/stat").read()
            name = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
        except OSError:
            continue
        f = st.rsplit(")", 1)[1].split()
        d[tid] = (name, (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK"))
    return d


a = snap()
time.sleep(dt)
b = snap()
tot = 0
rows = []
for t, (n, c) in b.items():
    c0 = a.get(t, (n, 0))[1]
    rows.append((c - c0, t, n))
    tot += c - c0
for d, t, n in sorted(rows, reverse=True)[:12]:
    print(f"{d:7.2f} {t} {n}")
print("total", round(tot, 2))
