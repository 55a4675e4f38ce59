"""The credit screen's curves, one line per job, against learner updates (each job's
TensorBoard scalars; means over 100-update windows):

    python experiments/issue27_credit_screen/plot.py RUN_ROOT OUT.png base vc4 lam07sh online
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tools.plot_run import load_scalars  # noqa: E402

PANELS = [
    ("in-run eval vs maxdamage (sampling, training teams)", "eval/win_rate/maxdamage", 1),
    ("value explained variance", "learner/main/value/explained_variance", 100),
    ("entropy of turn decisions (nats)", "learner/main/entropy/turn", 100),
    ("grad norm before clipping", "learner/main/grad_norm", 100),
]


def smooth(points, window):
    if window <= 1:
        return [p[0] for p in points], [p[1] for p in points]
    xs, ys = [], []
    for i in range(0, len(points), max(1, window // 4)):
        chunk = [v for s, v in points if points[i][0] - window < s <= points[i][0]]
        xs.append(points[i][0])
        ys.append(sum(chunk) / len(chunk))
    return xs, ys


root, out, jobs = Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
scal = {j: load_scalars(root / j) for j in jobs}
fig, axes = plt.subplots(2, 2, figsize=(11, 7))
for ax, (title, tag, window) in zip(axes.flat, PANELS):
    for j in jobs:
        pts = scal[j].get(tag, [])
        if pts:
            ax.plot(*smooth(pts, window), label=j, lw=1)
    ax.set(title=title, xlabel="learner updates")
    ax.legend(fontsize=8)
fig.tight_layout()
fig.savefig(out, dpi=90)
