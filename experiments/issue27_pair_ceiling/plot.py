"""Training win rate vs maxdamage by best-response update, one panel per team pair:
python experiments/issue27_pair_ceiling/plot.py DIR (reads DIR/PAIR_{scratch,ft}_exploit.json)."""

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

d = Path(sys.argv[1])
pairs = ["C311_C306", "C67_C334", "C131_C334"]
fig, axes = plt.subplots(1, 3, figsize=(12, 3.6), sharey=True)
for ax, p in zip(axes, pairs):
    for tag, label in (("scratch", "from scratch"), ("ft", "from agent:regc")):
        c = json.loads((d / f"{p}_{tag}_exploit.json").read_text())["curve"]
        pair = json.loads((d / f"{p}_{'pair' if tag == 'scratch' else 'ftpair'}_greedy.json").read_text())
        ax.plot([x[0] for x in c], [x[1] for x in c], label=f"{label}: on the pair {pair['p1_win_rate']:.2f}")
    regc = json.loads((d / f"{p}_regc_greedy.json").read_text())["p1_win_rate"]
    ax.axhline(regc, color="grey", ls="--", lw=0.8, label=f"agent:regc on the pair {regc:.2f}")
    ax.set(title=p.replace("_", " vs "), xlabel="best-response updates", ylim=(0, 1))
    ax.legend(fontsize=7, loc="lower right")
axes[0].set_ylabel("training win rate on the pool of 2 (decayed)")
fig.tight_layout()
fig.savefig(d / "curves.png", dpi=100)
