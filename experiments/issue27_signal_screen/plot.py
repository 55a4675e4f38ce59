"""Curves of the screen's runs from their TensorBoard logs: the in-run evaluation against
maxdamage (training teams, sampling), the policy's logit spread, the value's explained
variance and the turn entropy, against learner updates.

    python experiments/issue27_signal_screen/plot.py OUT.png NAME=RUN_DIR ...
"""

from __future__ import annotations

import glob
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

TAGS = {
    "eval/win_rate/maxdamage": "in-run vs maxdamage (training teams)",
    "learner/main/policy/logit_std": "logit spread (log scale)",
    "learner/main/value/explained_variance": "value: explained variance",
    "learner/main/entropy/turn": "turn entropy (nats)",
}


def series(run_dir: str) -> dict[str, tuple[list[int], list[float]]]:
    out: dict[str, tuple[list[int], list[float]]] = {}
    for f in glob.glob(f"{run_dir}/tb/events.*"):
        ea = EventAccumulator(f, size_guidance={"scalars": 0})
        ea.Reload()
        for t in TAGS:
            if t in ea.Tags()["scalars"]:
                ev = ea.Scalars(t)
                out[t] = ([e.step for e in ev], [e.value for e in ev])
    return out


def smooth(y: list[float], k: int = 15) -> list[float]:
    return [sum(y[max(0, i - k + 1) : i + 1]) / len(y[max(0, i - k + 1) : i + 1]) for i in range(len(y))]


def main() -> None:
    out, runs = sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]]
    fig, axes = plt.subplots(2, 2, figsize=(11, 7))
    for name, d in runs:
        s = series(d)
        for ax, t in zip(axes.flat, TAGS):
            if t in s:
                x, y = s[t]
                ax.plot(x, y if "logit_std" in t else smooth(y), label=name, lw=1)
    for ax, t in zip(axes.flat, TAGS):
        ax.set_title(TAGS[t], fontsize=9)
        ax.set_xlabel("learner updates", fontsize=8)
        if "logit_std" in t:
            ax.set_yscale("log")
    axes.flat[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    main()
