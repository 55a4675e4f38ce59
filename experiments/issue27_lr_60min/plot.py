"""In-run evaluation against maxdamage (sampling, the 12 training teams, last 200 games)
by learner update, from two hours' console logs: this one (lr 1e-4) and the default's
(lr 3e-4, experiments/issue27_zdrop_60min).

    python experiments/issue27_lr_60min/plot.py experiments/issue27_lr_60min/inrun.png
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = Path(__file__).resolve().parent
LOGS = {
    "lr 1e-4 (this hour)": HERE / "console.log",
    "lr 3e-4 (issue27_zdrop_60min)": HERE.parent / "issue27_zdrop_60min" / "console.log",
}
LINE = re.compile(r"updates\s+(\d+) \|.*\| eval maxdamage=([\d.]+)")


def curve(path: Path) -> tuple[list[int], list[float]]:
    xs, ys = [], []
    for line in path.read_text().splitlines():
        m = LINE.search(line)
        if m:
            xs.append(int(m.group(1)))
            ys.append(float(m.group(2)))
    return xs, ys


def main(out: str) -> None:
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, path in LOGS.items():
        ax.plot(*curve(path), label=name, lw=1)
    ax.set_xlabel("learner updates")
    ax.set_ylabel("win rate vs maxdamage (in-run, training teams)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=100)


if __name__ == "__main__":
    main(sys.argv[1])
