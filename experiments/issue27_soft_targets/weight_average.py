"""The mean of several snapshots' weights (stochastic weight averaging along one run),
written as a snapshot that `checkpoint:PATH` plays. Issue 27: does averaging the late
snapshots of an hour beat its last iterate?

    python experiments/issue27_soft_targets/weight_average.py OUT.pt SNAPSHOT.pt ...
"""

from __future__ import annotations

import sys
from pathlib import Path

from league.checkpoint import atomic_torch_save, safe_load


def main(out: str, paths: list[str]) -> None:
    if len(paths) < 2:
        raise SystemExit("name an output and at least two snapshots to average")
    states = [safe_load(p, "snapshot") for p in paths]
    nets = [s["learner"]["net"] for s in states]
    if any(n.keys() != nets[0].keys() for n in nets):
        raise SystemExit("the snapshots hold different networks: average snapshots of one run")
    avg = {
        k: (sum(n[k].double() for n in nets) / len(nets)).to(v.dtype) if v.is_floating_point() else v
        for k, v in nets[0].items()
    }
    last = dict(states[-1])
    last["learner"] = {**last["learner"], "net": avg}
    atomic_torch_save(last, Path(out))
    print(f"{out}: the mean of {len(nets)} snapshots' weights")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
