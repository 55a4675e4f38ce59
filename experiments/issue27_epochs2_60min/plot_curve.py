"""snapshot_curve.png: the snapshots' win rate against `maxdamage` on the 238 unseen teams
(400 greedy games each, Wilson 95 %) by learner update, one line per run.

    python experiments/issue27_epochs2_60min/plot_curve.py
"""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent
RUNS = {
    "epochs 2 (this hour; final 0.590 over 1,200)": ("snapshot_curve_early.json", "snapshot_curve.json"),
    "reg_c + 300 generated teams (issue27_genpool_1206; final 0.624)": (
        "snapshot_curve_genpool_early.json",
        "snapshot_curve_genpool.json",
    ),
}


def main() -> None:
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for label, files in RUNS.items():
        rows = sorted((r for f in files for r in json.loads((HERE / f).read_text())), key=lambda r: r["update"])
        x = [r["update"] for r in rows]
        y = [r["win_rate"] for r in rows]
        lo = [r["win_rate"] - r["ci95"][0] for r in rows]
        hi = [r["ci95"][1] - r["win_rate"] for r in rows]
        ax.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=3, label=label)
    ax.axhline(0.672, color="grey", ls="--", lw=1, label="the 12-05 default hour's final (0.672 over 1,200)")
    ax.set_xlabel("learner updates")
    ax.set_ylabel("win rate vs maxdamage, 238 unseen teams (greedy)")
    ax.set_ylim(0.35, 0.8)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(HERE / "snapshot_curve.png", dpi=110)


if __name__ == "__main__":
    main()
