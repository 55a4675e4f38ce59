"""Nash-mixture report of a run's league.

    python -m tools.nash_report RUN_DIR [--boot 200] [--seed 0]

Reads RUN_DIR/league/registry.json and payoff.json (and RUN_DIR/tb for ratings over
time), solves the Nash mixture of the empirical meta-game over every member that has
played (league/population/nash.py; a pair that never played reads as the two members'
OpenSkill ratings predict, as the league's own Nash uses do), bootstraps intervals from
the game counts, and
writes RUN_DIR/reports/nash.md with PNGs beside it: payoff heat-map with counts, Nash
weights with intervals, Nash averages, ratings over time. The same images go to
TensorBoard (RUN_DIR/tb, tag ``report/*``). A failed solve is reported as an error
(exit code 1), never replaced by a uniform mixture. Last stdout line: JSON with
``report``, ``members``, ``support``, ``solver_status``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np


def _figures(ids, w, g, res, lo, hi, ratings_over_time):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(ids)
    figs = {}
    fig, ax = plt.subplots(figsize=(1.0 + 0.8 * n, 0.8 + 0.7 * n))
    ax.imshow(w, cmap="RdBu", vmin=0, vmax=1)
    for i in range(n):
        for j in range(n):
            if i != j:
                txt = f"{w[i, j]:.2f}\n({g[i, j]})" if g[i, j] else "·"
                ax.text(j, i, txt, ha="center", va="center", fontsize=7)
    ax.set_xticks(range(n), ids, rotation=60, ha="right", fontsize=7)
    ax.set_yticks(range(n), ids, fontsize=7)
    ax.set_title("payoff: row's win rate vs column (games)")
    fig.tight_layout()
    figs["payoff"] = fig

    fig, ax = plt.subplots(figsize=(1.5 + 0.5 * n, 3.5))
    ax.bar(range(n), res.weights, yerr=[res.weights - lo, hi - res.weights], capsize=3)
    ax.set_xticks(range(n), ids, rotation=60, ha="right", fontsize=7)
    ax.set_title("Nash weights (95% bootstrap)")
    fig.tight_layout()
    figs["nash_weights"] = fig

    fig, ax = plt.subplots(figsize=(1.5 + 0.5 * n, 3.5))
    ax.bar(range(n), res.averages, color=["tab:green" if a > -1e-6 else "tab:red" for a in res.averages])
    ax.set_xticks(range(n), ids, rotation=60, ha="right", fontsize=7)
    ax.set_title("Nash averages (payoff vs the Nash mixture)")
    fig.tight_layout()
    figs["nash_averages"] = fig

    fig, ax = plt.subplots(figsize=(8, 4))
    for mid, series in sorted(ratings_over_time.items()):
        xs, ys = zip(*series)
        ax.plot(xs, ys, label=mid)
    ax.set_title("OpenSkill ordinal (mu - 3 sigma)")
    ax.set_xlabel("main learner update")
    if ratings_over_time:
        ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    figs["ratings"] = fig
    return figs


def main(argv=None) -> dict:
    from league.population.nash import NashError, bootstrap_nash, nash_mixture, replicator
    from league.population.payoff import PayoffTable, Ratings
    from league.population.registry import Registry
    from tools import cli

    ap = cli.parser("python -m tools.nash_report", __doc__)
    ap.add_argument("run_dir", help="a league run directory (RUN_DIR/league/registry.json and payoff.json)")
    ap.add_argument("--boot", type=int, default=200, help="bootstrap resamples")
    cli.add_seed(ap, "seeds the bootstrap")
    args = ap.parse_args(argv)
    run = Path(args.run_dir)
    reg_path, pay_path = run / "league" / "registry.json", run / "league" / "payoff.json"
    for p in (reg_path, pay_path):
        if not p.is_file():
            cli.bad_input(f"{p} not found: RUN_DIR must be a league run directory (league.enabled=true)")
    reg = Registry.load(reg_path)
    payoff = PayoffTable.load(pay_path)
    ids = sorted({a for a, _ in payoff.raw_games}, key=lambda m: (m != "main", m))
    if len(ids) < 2:
        cli.bad_input(f"{pay_path} holds no games yet: nothing to analyse")
    missing = [m for m in ids if m not in reg.members]
    if missing:
        cli.bad_input(
            f"{pay_path} holds games of {', '.join(missing[:5])}, which {reg_path} does not list: "
            "the two files are from different runs (copy both from one run directory)"
        )
    w, g = payoff.matrix(ids)
    # pairs never played: the members' predicted score from their ratings, not 1/2 (a
    # member that won its few games would otherwise be unbeatable; league.py's portfolio)
    w = Ratings().fill_unplayed(w, g, [reg.get(m) for m in ids])
    out_dir = run / "reports"
    out_dir.mkdir(parents=True, exist_ok=True)
    report = out_dir / "nash.md"
    try:
        res = nash_mixture(w)
    except NashError as e:
        report.write_text(f"# Nash report\n\n**Error**: {e}\n")
        print(json.dumps({"report": str(report), "members": len(ids), "support": [], "solver_status": str(e)}))
        raise SystemExit(1) from None
    lo, hi = bootstrap_nash(
        w, np.asarray([[payoff.games.get((a, b), 0.0) for b in ids] for a in ids]), n_boot=args.boot, seed=args.seed
    )
    rep = replicator(w)
    ratings_over_time = {}
    if (run / "tb").is_dir():
        from tools.plot_run import load_scalars

        ratings_over_time = {
            t.split("/", 2)[2]: v for t, v in load_scalars(run).items() if t.startswith("league/rating/") and v
        }
    figs = _figures(ids, w, g, res, lo, hi, ratings_over_time)
    for name, fig in figs.items():
        fig.savefig(out_dir / f"{name}.png", dpi=90)
    from torch.utils.tensorboard import SummaryWriter

    tb = SummaryWriter(str(run / "tb"))
    step = max((s for v in ratings_over_time.values() for s, _ in v), default=0)
    for name, fig in figs.items():
        tb.add_figure(f"report/{name}", fig, step)
    tb.close()

    played = int(np.count_nonzero(g[np.triu_indices(len(ids), 1)] + g.T[np.triu_indices(len(ids), 1)]))
    pairs = len(ids) * (len(ids) - 1) // 2
    support = [ids[i] for i in res.support]
    lines = [
        f"# Nash report: {run}",
        "",
        f"Members that have played: {len(ids)}; pairs played: {played} of {pairs} (an unplayed pair reads as the members' ratings predict).",
        f"Solver: scipy HiGHS — {res.status}; game value {res.value:+.2e} (0 for a symmetric game).",
        f"Support: {', '.join(support)}",
        "",
        "| member | role | Nash weight | 95% bootstrap | Nash average | replicator | rating (mu-3sigma) | games |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for i, mid in enumerate(ids):
        m = reg.get(mid)
        role, rating, games = m.role, f"{m.ordinal:.2f}", m.games
        lines.append(
            f"| {mid} | {role} | {res.weights[i]:.3f} | [{lo[i]:.3f}, {hi[i]:.3f}] | {res.averages[i]:+.3f} "
            f"| {rep[i]:.3f} | {rating} | {games} |"
        )
    lines += [
        "",
        "![payoff](payoff.png)",
        "![Nash weights](nash_weights.png)",
        "![Nash averages](nash_averages.png)",
        "![ratings](ratings.png)",
        "",
    ]
    report.write_text("\n".join(lines))
    summary = {
        "report": str(report),
        "members": len(ids),
        "support": support,
        "solver_status": res.status,
        "pairs_played": played,
        "images": sorted(str(out_dir / f"{n}.png") for n in figs),
    }
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
