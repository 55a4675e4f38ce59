"""Plot a run's TensorBoard scalars to PNG files (for experiment write-ups).

    python -m tools.plot_run RUN_DIR [--out DIR]
    python -m tools.plot_run RUN_A RUN_B ... --labels a,b,... --out DIR   # runs overlaid

Writes curves.png (evaluation win rates, losses, entropy, throughput) and
diagnostics.png (the learner's diagnostics: explained variance, gradient norm, KL
between published policies, entropy by decision, what a slot does: tera, switch, Protect and
status masses), and
prints, as its last line, JSON with the last value of every scalar tag (per run when several).
"""

from __future__ import annotations

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
DIAGNOSTICS = [
    ("value head: explained variance", ["learner/main/value/explained_variance"]),
    ("gradient norm before clipping", ["learner/main/grad_norm"]),
    ("KL between published policies (every diag_every)", ["learner/main/policy/kl_published"]),
    (
        "entropy by decision",
        [
            "learner/main/entropy/preview",
            "learner/main/entropy/turn",
            "learner/main/entropy/kind",
            "learner/main/entropy/move",
            "learner/main/entropy/target",
        ],
    ),
    (
        "what a slot does: tera, switch, Protect, status",
        [
            "learner/main/policy/tera_mass",
            "learner/main/policy/switch_mass",
            "learner/main/policy/protect_mass",
            "learner/main/policy/status_mass",
        ],
    ),
    ("training win rate vs the baselines", ["league/win_rate/maxdamage", "league/win_rate/random"]),
]
SMOOTH = 50  # diagnostics are drawn as running means over this many points


def _running_mean(ys, n: int) -> list[float]:
    import numpy as np

    if n <= 1 or len(ys) < n:
        return list(ys)
    c = np.cumsum(np.insert(np.asarray(ys, dtype=float), 0, 0.0))
    return list(np.concatenate([c[1:n] / np.arange(1, n), (c[n:] - c[:-n]) / n]))


def _figure(plt, panels, shape, runs, labels, all_scalars, path: Path, smooth: int) -> None:
    fig, axes = plt.subplots(*shape, figsize=(6 * shape[1], 4 * shape[0]))
    for ax, (title, tags) in zip(axes.flat, panels):
        for label, scalars in zip(labels, all_scalars):
            for tag in tags:
                if tag in scalars and scalars[tag]:
                    xs, ys = zip(*scalars[tag])
                    name = tag.split("/", 1)[1].removeprefix("main/")
                    ax.plot(xs, _running_mean(ys, smooth), label=name if len(runs) == 1 else f"{label}: {name}")
        ax.set_title(title)
        ax.set_xlabel("learner update")
        if ax.lines:
            ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv=None) -> dict | list[dict]:
    from tools import cli

    ap = cli.parser("python -m tools.plot_run", __doc__)
    ap.add_argument("run_dirs", nargs="+", help="run directories (their tb/ is read)")
    cli.add_out(ap, "where curves.png goes (default: the first run directory)")
    ap.add_argument("--labels", default=None, help="comma-separated, one per run (default: the run dir names)")
    args = ap.parse_args(argv)
    runs = [Path(r) for r in args.run_dirs]
    labels = args.labels.split(",") if args.labels else [r.name for r in runs]
    if len(labels) != len(runs):
        ap.error(f"--labels names {len(labels)} runs, {len(runs)} given")
    out = Path(args.out) if args.out else runs[0]
    out.mkdir(parents=True, exist_ok=True)
    all_scalars = [load_scalars(r) for r in runs]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _figure(plt, PANELS, (2, 2), runs, labels, all_scalars, out / "curves.png", smooth=1)
    _figure(plt, DIAGNOSTICS, (2, 3), runs, labels, all_scalars, out / "diagnostics.png", smooth=SMOOTH)
    last = [{tag: round(v[-1][1], 4) for tag, v in sc.items() if v} for sc in all_scalars]
    if len(runs) == 1:  # one run: its values alone
        print(json.dumps({"png": str(out / "curves.png"), "last": last[0]}))
        return last[0]
    print(json.dumps({"png": str(out / "curves.png"), "last": dict(zip(labels, last))}))
    return last


if __name__ == "__main__":
    main()
