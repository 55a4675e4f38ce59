"""Per-pair greedy rates vs maxdamage: the uniform draw (mean of its three seeds) against
each team-pair arm (mean of its seeds), on the 36 training pairs and the 36 unseen ones.

    python experiments/issue27_team_pfsp/plot.py OUT.png squared=compare_squared.json variance=compare_variance.json
(each JSON: compare.py's output)
"""

from __future__ import annotations

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def per_pair(arm: dict, kind: str) -> dict[str, float]:
    seeds = [v[kind]["rates"] for k, v in arm.items() if k.startswith("seed") and v[kind]]
    return {p: sum(s[p] for s in seeds) / len(seeds) for p in seeds[0]}


def main() -> None:
    out, arms = sys.argv[1], dict(a.split("=", 1) for a in sys.argv[2:])
    fig, axes = plt.subplots(1, 2, figsize=(10, 5))
    for ax, kind in zip(axes, ("trained_pairs", "unseen_pairs")):
        for name, path in arms.items():
            d = json.load(open(path))
            base, arm = per_pair(d["uniform"], kind), per_pair(d["arm"], kind)
            n = sum(1 for k in d["arm"] if k.startswith("seed") and d["arm"][k][kind])
            ax.scatter([base[p] for p in arm], [arm[p] for p in arm], label=f"{name} ({n} seeds)", alpha=0.7)
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8)
        ax.set_xlabel("uniform pairs (3 seeds' mean)")
        ax.set_ylabel("the arm (its seeds' mean)")
        ax.set_title(kind.replace("_", " ") + ", greedy vs maxdamage")
        ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
