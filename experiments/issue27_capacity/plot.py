"""Training win rate vs maxdamage against best-response learner updates, one line per
tools.exploit result: python experiments/issue27_capacity/plot.py OUT.png NAME=exploit.json ..."""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

fig, ax = plt.subplots(figsize=(7, 4))
for arg in sys.argv[2:]:
    name, path = arg.split("=", 1)
    d = json.load(open(path))
    c = d["curve"]
    ax.plot([p[0] for p in c], [p[1] for p in c], label=f"{name}: unseen greedy {d['exploit_win_rate']:.3f}")
ax.set(xlabel="learner updates", ylabel="training win rate vs maxdamage (decayed)", ylim=(0, 1))
ax.axhline(0.5, color="grey", lw=0.5)
ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(sys.argv[1], dpi=100)
