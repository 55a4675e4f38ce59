"""The league's figures (Elo against training step, matrices as heat-maps), drawn with
matplotlib's object API (no pyplot: safe in the coordinator's process), written
atomically and rendered for TensorBoard."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def _figure(w: float, h: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h))
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig, path: str | Path, dpi: int = 90) -> Path:
    """PNG into a temporary file beside ``path``, then renamed over it: a reader (or a
    kill) never sees half a file."""
    from league.atomic import atomic_write

    return atomic_write(path, lambda f: fig.savefig(f, dpi=dpi, format="png"), binary=True)


def figure_image(fig) -> np.ndarray:
    """The figure as an RGB array [H, W, 3] (TensorBoard ``add_image(..., dataformats="HWC")``)."""
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[..., :3].copy()


def elo_vs_step_figure(points: list[tuple[str, int, float]], baselines: dict[str, float], anchor: str | None):
    """Each snapshot's Elo (``points``: id, training step, Elo) against its training
    step, the baselines as horizontal lines."""
    fig = _figure(7.0, 4.0)
    ax = fig.add_subplot()
    if points:
        xs, ys = [p[1] for p in points], [p[2] for p in points]
        ax.plot(xs, ys, "o-", color="tab:blue", label="snapshots")
    for k, (name, elo) in enumerate(sorted(baselines.items())):
        ax.axhline(elo, ls="--", lw=1, color=f"C{k + 1}", label=name)
    ax.set_xlabel("training step (learner updates)")
    ax.set_ylabel(f"Elo ({anchor} = 0)" if anchor else "Elo (mean 0)")
    ax.set_title("strength over training")
    if points or baselines:
        ax.legend(fontsize=8, loc="best")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def matrix_figure(m: np.ndarray, names: list[str], title: str, vmin: float, vmax: float, fmt: str = "{:.2f}"):
    """A labelled heat-map of ``m`` (row vs column, viridis), each off-diagonal cell written."""
    n = len(names)
    fig = _figure(1.5 + 0.7 * max(n, 2), 1.0 + 0.6 * max(n, 2))
    ax = fig.add_subplot()
    im = ax.imshow(m, cmap="viridis", vmin=vmin, vmax=vmax)
    for i in range(n):
        for j in range(n):
            if i != j:
                dark = m[i, j] < (vmin + vmax) / 2  # viridis is dark at the low end
                ax.text(j, i, fmt.format(m[i, j]), ha="center", va="center", fontsize=7, color="w" if dark else "k")
    ax.set_xticks(range(n), names, rotation=60, ha="right", fontsize=7)
    ax.set_yticks(range(n), names, fontsize=7)
    ax.set_title(title, fontsize=9)
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.04)
    fig.tight_layout()
    return fig
