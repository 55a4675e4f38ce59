"""Plot a run's TensorBoard scalars to PNG files (for experiment write-ups).

    python -m tools.plot_run RUN_DIR [--out DIR]

Writes curves.png (evaluation win rates, losses, entropy, throughput) and prints, as
its last line, JSON with the last value of every scalar tag.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def load_scalars(run_dir: Path) -> dict[str, list[tuple[int, float]]]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    ea = EventAccumulator(str(run_dir / "tb"), size_guidance={"scalars": 0})
    ea.Reload()
    return {tag: [(e.step, e.value) for e in ea.Scalars(tag)] for tag in ea.Tags()["scalars"]}


PANELS = [
    ("evaluation win rate", ["eval/win_rate/random", "eval/win_rate/maxdamage"]),
    ("policy / value loss", ["learner/main/loss/policy", "learner/main/loss/value"]),
    ("entropy, KL to pi_reg", ["learner/main/entropy", "learner/main/kl_to_reg"]),
    ("throughput", ["sim/battles_per_s", "sim/batch_size_mean"]),
]


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m tools.plot_run")
    ap.add_argument("run_dir")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    run_dir = Path(args.run_dir)
    out = Path(args.out) if args.out else run_dir
    out.mkdir(parents=True, exist_ok=True)
    scalars = load_scalars(run_dir)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(12, 8))
    for ax, (title, tags) in zip(axes.flat, PANELS):
        for tag in tags:
            if tag in scalars and scalars[tag]:
                xs, ys = zip(*scalars[tag])
                ax.plot(xs, ys, label=tag.split("/", 1)[1])
        ax.set_title(title)
        ax.set_xlabel("learner update")
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "curves.png", dpi=90)
    last = {tag: round(v[-1][1], 4) for tag, v in scalars.items() if v}
    print(json.dumps({"png": str(out / "curves.png"), "last": last}))
    return last


if __name__ == "__main__":
    main()
