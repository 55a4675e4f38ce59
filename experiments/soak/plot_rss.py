"""Memory of every process a tools.chaos soak watched, from chaos.json's ``rss_mb.series``
(one sample a minute of each process's life, from --rss-from minutes on):

    python experiments/soak/plot_rss.py CHAOS_JSON OUT_PNG

Prints a markdown table, one row per process watched at least MIN_WATCHED minutes from
minute FROM_MIN of its life: its kind, pid, minutes watched, the median MiB of its first
and last five of those minutes and the growth between them; draws every process's whole
curve by kind (start-up included, a line at FROM_MIN)."""

import json
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

MIN_WATCHED = 10.0  # minutes watched from FROM_MIN on: shorter says nothing about growth
WINDOW = 5.0
FROM_MIN = 20.0  # the must-show's growth is from minute 20 of a process's life (start-up is not growth)


def medians(mb: list[list[float]]) -> tuple[float, float]:
    t0, t1 = mb[0][0], mb[-1][0]
    return (
        statistics.median(v for t, v in mb if t <= t0 + WINDOW),
        statistics.median(v for t, v in mb if t >= t1 - WINDOW),
    )


def trend(mb: list[list[float]]) -> float:
    """The least-squares line's rise over the span, in % of the mean (a sawtooth's swings
    cancel out; a leak does not)."""
    n = len(mb)
    mt, mv = sum(t for t, _ in mb) / n, sum(v for _, v in mb) / n
    slope = sum((t - mt) * (v - mv) for t, v in mb) / sum((t - mt) ** 2 for t, _ in mb)
    return 100 * slope * (mb[-1][0] - mb[0][0]) / mv


def main(path: str, out: str) -> None:
    series = json.load(open(path))["rss_mb"]["series"]
    kinds = sorted({s["kind"] for s in series})
    fig, axes = plt.subplots(len(kinds), 1, figsize=(7, 2.2 * len(kinds)), sharex=True, squeeze=False)
    print("| kind | pid | minutes watched | first 5 min (median MiB) | last 5 min | growth | trend over the span |")
    print("|---|---|---|---|---|---|---|")
    for ax, kind in zip(axes[:, 0], kinds):
        for s in (s for s in series if s["kind"] == kind and s["mb"]):
            ax.plot([p[0] for p in s["mb"]], [p[1] for p in s["mb"]], lw=0.8)
            mb = [p for p in s["mb"] if p[0] >= FROM_MIN]
            if not mb:
                continue
            watched = mb[-1][0] - mb[0][0]
            if watched >= MIN_WATCHED:
                a, b = medians(mb)
                t = f"{trend(mb):+.1f} %"
                print(f"| {kind} | {s['pid']} | {watched:.0f} | {a:.0f} | {b:.0f} | {100 * (b - a) / a:+.1f} % | {t} |")
        ax.set(ylabel="RSS MiB", title=kind)
        ax.title.set_fontsize(9)
    for ax in axes[:, 0]:
        ax.axvline(FROM_MIN, color="grey", lw=0.5)
    axes[-1, 0].set_xlabel("minute of the process's life")
    fig.tight_layout()
    fig.savefig(out, dpi=100)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
