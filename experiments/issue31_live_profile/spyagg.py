"""Shares of a live simulator's main thread by function, from a py-spy raw profile
(``py-spy record --native -f raw``): inclusive (the function anywhere on the stack) and
by the innermost Python or compiled (Cython, ``.c``) frame. Only the stacks through
``run_simulator`` (the simulator's event loop: its main thread) are counted.

    python experiments/issue31_live_profile/spyagg.py PROFILE.txt[.gz] [N]
    python experiments/issue31_live_profile/spyagg.py PROFILE.txt[.gz] --children FUNCTION
    python experiments/issue31_live_profile/spyagg.py PROFILE.txt[.gz] --parts

(experiments/issue31_infer_rnn/fold.py gives the inclusive shares alone, from a plain file.)
"""

from __future__ import annotations

import collections
import gzip
import re
import sys

FRAME = re.compile(r"(.*?) \((.*?)(?::\d+)?\)$")


def stacks(path: str):
    for line in gzip.open(path, "rt") if path.endswith(".gz") else open(path):
        stack, n = line.rsplit(" ", 1)
        if "run_simulator" in stack:
            yield [m.groups() for f in stack.split(";") if (m := FRAME.match(f))], int(n)


def shares(path: str, top: int) -> None:
    incl: collections.Counter[str] = collections.Counter()
    inner: collections.Counter[str] = collections.Counter()
    total = 0
    for frames, n in stacks(path):
        total += n
        ours = [f"{fn} [{src.split('/')[-1]}]" for fn, src in frames if src.endswith((".py", ".c"))]
        for k in set(ours):
            incl[k] += n
        if ours:
            inner[ours[-1]] += n
    print(f"main-thread samples {total}")
    for title, c in (("inclusive", incl), ("innermost Python or compiled frame", inner)):
        print(f"--- {title}")
        for k, v in c.most_common(top):
            print(f"{100 * v / total:5.1f}%  {k}")


def children(path: str, target: str) -> None:
    c: collections.Counter[str] = collections.Counter()
    total = hit = 0
    for frames, n in stacks(path):
        total += n
        names = [fn for fn, _ in frames]
        idx = [i for i, f in enumerate(names) if f == target]
        if idx:
            hit += n
            rest = [f for f in names[idx[-1] + 1 :] if not f.startswith(("Py_", "__Pyx", "0x")) and f != target]
            c[rest[0] if rest else "<self>"] += n
    print(f"{target}: {100 * hit / total:.1f}% of the main thread")
    for k, v in c.most_common(15):
        print(f"{100 * v / total:5.2f}%  {k}")


# the README's table: each sample to the first of these found on its stack
PARTS = (
    ("decisions (make_decision)", "make_decision"),
    ("inference (PolicyServer._flush)", "PolicyServer._flush"),
    ("poke-env: requests (parse_request)", "parse_request"),
    ("poke-env: other lines (parse_message)", "parse_message"),
    ("a battle's end (_battle_finished_callback)", "LeaguePlayer._battle_finished_callback"),
    ("a new battle (Player._create_battle)", "Player._create_battle"),
    ("the players' own code (under Player._handle_battle_message)", "Player._handle_battle_message"),
    ("frames from the workers (WorkerLink._drain)", "WorkerLink._drain"),
)


def parts(path: str) -> None:
    c: collections.Counter[str] = collections.Counter()
    total = 0
    for frames, n in stacks(path):
        total += n
        names = {fn for fn, _ in frames}
        c[next((label for label, fn in PARTS if fn in names), "the event loop, timers, the learner link")] += n
    for k, v in c.most_common():
        print(f"| {k} | {100 * v / total:.1f} % |")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[2] == "--parts":
        parts(sys.argv[1])
    elif len(sys.argv) > 3 and sys.argv[2] == "--children":
        children(sys.argv[1], sys.argv[3])
    else:
        shares(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 60)
