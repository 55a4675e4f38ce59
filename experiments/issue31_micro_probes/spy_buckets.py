"""A py-spy folded profile (``py-spy record --native --format raw``) of the simulator,
its main thread's samples bucketed by the first of a list of frames each stack holds
(decisions, the batched forward, poke-env's parse_message / parse_request, ...).

    python experiments/issue31_micro_probes/spy_buckets.py sim.folded FIRST_FRAME_PREFIX
"""

import collections
import sys

cats = [
    "make_decision",
    "PolicyServer._flush",
    "parse_message",
    "parse_request",
    "_battle_finished_callback",
    "choose_move",
    "_handle_battle_request",
    "Player._handle_battle_message",
    "LeaguePlayer._handle_battle_message",
    "WorkerLink._drain",
    "Handle._run",
]
b = collections.Counter()
leaf = collections.defaultdict(collections.Counter)
n = 0
for line in open(sys.argv[1]):
    stack, c = line.rstrip().rsplit(" ", 1)
    c = int(c)
    fr = stack.split(";")
    if not fr[0].startswith(sys.argv[2]):
        continue
    names = [f.split(" (")[0] for f in fr]
    n += c
    for k in cats:
        if k in names:
            b[k] += c
            # frame just below k
            i = names.index(k)
            nxt = names[i + 1] if i + 1 < len(names) else "<self>"
            leaf[k][nxt] += c
            break
    else:
        b["other"] += c
        leaf["other"][names[-1]] += c
print(n)
for k, c in b.most_common():
    print(f"{c:6d} {c / n:.3f} {k}")
    for kk, cc in leaf[k].most_common(8):
        print(f"        {cc:6d} {cc / n:.3f} {kk[:80]}")
