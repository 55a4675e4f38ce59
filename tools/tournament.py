"""Tournament between checkpoints (and baselines) on a fresh fleet: round-robin, or
sequential over a run's snapshots.

    python -m tools.tournament CKPT [CKPT ...] [--baselines random,maxdamage] [-n BATTLES_PER_PAIR]
                               [--sequential [--previous K]] [--teams DIR] [--servers K] [--concurrency C]
                               [--greedy] [--out DIR] [--save-replays DIR]
    python -m tools.tournament RUN_DIR --sequential [--previous K] [-n BATTLES_PER_PAIR]

CKPT: checkpoint files (ordered by the learner step they record, else as given), or
one run directory: its snapshots of the main agent (``RUN_DIR/league/past-*.pt`` frozen
from main, by their training step in the registry; a run without a league: its
``checkpoints/``). Round-robin (default): every pair plays n battles (teams drawn per
battle from the pool). ``--sequential``: each checkpoint, in training order, plays only
the ``--previous`` K checkpoints before it and every baseline (n (K + baselines) pairs
instead of n²/2; the baselines tie every snapshot to one scale): the offline twin of a
league run's rolling tournament. Prints a table and, as its last line, JSON: players,
Elo (Bradley-Terry maximum likelihood over the games played, mean 0, one tie added per
pair), OpenSkill (mu, sigma, ordinal), the win-rate matrix (pairs that played), games,
Showdown errors, the heat-map path, Elo against training step (``elo_by_step``,
``elo_step_corr``: Spearman's correlation, the plot ``elo_vs_step.png``) and the
monotonic-improvement check over the checkpoints in training order on the pairs that
played (``monotonic``: every later checkpoint beats every earlier one it met;
``each_beats_previous``; ``later_wins_share``; ``pairs_checked``).
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from itertools import combinations
from pathlib import Path

import numpy as np


def run_snapshots(run_dir: Path) -> dict[Path, int]:
    """A run's snapshots of the main agent, each with its training step, oldest first:
    the registry's ``past`` members frozen from ``main`` (not clones) whose files exist;
    without a league, the run's checkpoints (steps read from them)."""
    from league.population.registry import Registry

    reg = run_dir / "league" / "registry.json"
    if reg.is_file():
        snaps = sorted(
            (
                m
                for m in Registry.load(reg).members.values()
                if m.role == "past" and m.parent == "main" and m.status != "discarded"
            ),
            key=lambda m: (m.created_update, m.id),
        )
        found = {Path(m.checkpoint): m.created_update for m in snaps if m.checkpoint and Path(m.checkpoint).is_file()}
        if found:
            return found
    from league.checkpoint import list_checkpoints

    paths = list_checkpoints(run_dir)
    if not paths:
        raise ValueError(f"{run_dir}: no snapshots (league/registry.json) and no checkpoints")
    return _training_order(paths)


def _training_order(paths: list[Path]) -> dict[Path, int]:
    """Each checkpoint's learner step; the command line's order if any lacks one."""
    from league.checkpoint import load_checkpoint

    steps = [load_checkpoint(p).get("learner", {}).get("steps") for p in paths]
    if any(s is None for s in steps):
        return {p: i for i, p in enumerate(paths)}
    return {p: int(s) for p, s in zip(paths, steps)}


def main(argv=None) -> dict:
    from league.checkpoint import CheckpointError
    from league.match import play_matches
    from league.players import PlayerSpecError
    from league.population.elo import bradley_terry_elo, monotonic_check, rank_correlation, sequential_pairs
    from league.population.payoff import Ratings
    from league.population.plots import elo_vs_step_figure, save_figure
    from league.population.registry import Member, RegistryError
    from league.showdown import ShowdownSetupError, locate_showdown, make_fleet
    from league.specs import player_factory
    from league.teams import TeamPoolError, TeamRepository
    from tools import cli
    from tools.battle import replays_to

    ap = cli.parser("python -m tools.tournament", __doc__)
    ap.add_argument(
        "checkpoints",
        nargs="+",
        help="league checkpoint files, in training order (read from them when they all record it), "
        "or one run directory (its snapshots)",
    )
    ap.add_argument("--baselines", default="random,maxdamage", help="comma-separated fixed players ('' for none)")
    ap.add_argument(
        "--sequential",
        action="store_true",
        help="each checkpoint plays the --previous ones before it and the baselines, not every other",
    )
    ap.add_argument("--previous", type=int, default=2, help="with --sequential: earlier checkpoints each one plays")
    cli.add_battles(ap, 50, "battles per pair")
    cli.add_teams(ap)
    cli.add_format(ap)
    cli.add_open_team_sheets(ap)
    cli.add_fleet(ap)
    ap.add_argument("--greedy", action="store_true", help="network players take the most likely action")
    cli.add_seed(ap)
    cli.add_save_replays(ap)
    cli.add_out(ap, "where the heat-map and JSON go (default: runs/tournament/<time>)")
    args = ap.parse_args(argv)
    cli.exit_on_sigterm()

    # ---- check everything before starting anything
    cli.check_positive(**{"-n": args.battles, "--servers": args.servers, "--concurrency": args.concurrency})
    if args.previous < 0:
        cli.bad_input(f"--previous must be >= 0, got {args.previous}")
    try:
        cli.check_open_team_sheets(args.format, args.open_team_sheets)
        ckpts = [Path(c) for c in args.checkpoints]
        if len(ckpts) == 1 and ckpts[0].is_dir():
            order = run_snapshots(ckpts[0])
            ckpts = list(order)
        else:
            order = _training_order(ckpts) if all(c.is_file() for c in ckpts) else {}
        specs, names = [], []
        for c in ckpts:
            name = c.stem if c.stem not in names else f"{c.parent.parent.name}/{c.stem}"
            specs.append(f"checkpoint:{c}")
            names.append(name)
        for b in [b for b in args.baselines.split(",") if b]:
            specs.append(b)
            names.append(b)
        if len(set(names)) != len(names):
            raise ValueError(f"two players share a name: {names}")
        if len(specs) < 2:
            raise ValueError("a tournament needs at least two players")
        n = len(specs)
        index = {nm: i for i, nm in enumerate(names)}
        ck_names = names[: len(ckpts)]
        steps = {nm: order.get(c, k) for k, (nm, c) in enumerate(zip(ck_names, ckpts))}  # training step (or position)
        by_order = sorted(ck_names, key=lambda nm: (steps[nm], index[nm]))
        if args.sequential:  # each checkpoint against the previous K and the baselines
            pairs = [(index[a], index[b]) for a, b in sequential_pairs(by_order, names[len(ckpts) :], args.previous)]
            if not pairs:
                raise ValueError("--sequential with --previous 0 and no baselines plays nothing")
        else:
            pairs = list(combinations(range(n), 2))
        factories = [
            player_factory(s, args.seed + i, args.greedy, format_id=args.format, backend=args.backend)
            for i, s in enumerate(specs)
        ]
        install = locate_showdown()
        teams = [t.packed for t in TeamRepository(install).load(args.format, args.teams)]
    except (PlayerSpecError, CheckpointError, RegistryError, ShowdownSetupError, TeamPoolError, ValueError) as e:
        cli.bad_input(str(e))
    out = Path(args.out or f"runs/tournament/{time.strftime('%Y%m%d-%H%M%S')}")
    out.mkdir(parents=True, exist_ok=True)

    wins = np.zeros((n, n))
    games = np.zeros((n, n))
    errors = unfinished = 0
    error_examples: list[str] = []  # Showdown's |error| messages, the first 20, with their pair
    members = [Member(id=nm, role="past" if s.startswith("checkpoint:") else s) for nm, s in zip(names, specs)]
    ratings = Ratings()
    t0 = time.monotonic()

    async def play_all(fleet, bar: cli.Progress) -> None:
        nonlocal errors, unfinished
        for k, (i, j) in enumerate(pairs):
            before = int(games.sum() // 2)
            make_i = factories[i]
            if args.save_replays:  # one folder per pair (battle ids start again for each)
                make_i = replays_to(make_i, str(Path(args.save_replays) / f"{names[i]}_vs_{names[j]}"))

            def progress(done: int, before: int = before) -> None:
                bar.advance(before + done)

            r = await play_matches(
                fleet,
                make_i,
                factories[j],
                args.battles,
                teams,
                teams,
                battle_format=args.format,
                concurrency=args.concurrency,
                seed=args.seed + k,
                on_progress=progress,
                open_team_sheets=args.open_team_sheets,
            )
            score = r.p1_wins + 0.5 * r.ties
            wins[i, j], wins[j, i] = score, r.battles - score
            games[i, j] = games[j, i] = r.battles
            errors += r.showdown_errors
            for e in r.error_examples[: max(0, 20 - len(error_examples))]:
                error_examples.append(f"{names[i]} vs {names[j]}: {e}")
            unfinished += r.unfinished
            outcomes = [1.0] * r.p1_wins + [0.0] * r.p2_wins + [0.5] * r.ties
            np.random.default_rng(k).shuffle(outcomes)  # interleave: OpenSkill depends on the order
            for s in outcomes:
                ratings.update(members[i], members[j], s)
            print(f"{names[i]:>24} vs {names[j]:<24} {score:5.1f} / {r.battles}", flush=True)

    with (
        tempfile.TemporaryDirectory(prefix="tournament-") as tmp,
        make_fleet(args.backend, args.servers, tmp, install=install) as fleet,
        cli.Progress(len(pairs) * args.battles, "battles") as bar,
    ):  # server dirs: not beside the results
        asyncio.run(play_all(fleet, bar))
    wr = np.where(games > 0, wins / np.maximum(games, 1), 0.5)
    np.fill_diagonal(wr, 0.5)
    played = [i for i in range(n) if games[i].sum() > 0]  # a player without a game gets no rating
    elo = np.full(n, np.nan)
    elo[played] = bradley_terry_elo(wins[np.ix_(played, played)], games[np.ix_(played, played)], prior=1.0)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1.5 + 0.9 * n, 1.0 + 0.8 * n))
    blank = games == 0
    np.fill_diagonal(blank, False)
    ax.imshow(np.ma.masked_where(blank, wr), cmap="RdBu", vmin=0, vmax=1)
    for i in range(n):
        for j in range(n):
            if i != j and not blank[i, j]:
                ax.text(j, i, f"{wr[i, j]:.2f}", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(n), names, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(n), [f"{nm} ({e:+.0f})" for nm, e in zip(names, elo)], fontsize=8)
    ax.set_title("row's win rate vs column (Elo)" + (" (blank: not played)" if blank.any() else ""))
    fig.tight_layout()
    heatmap = save_figure(fig, out / "tournament.png")
    plt.close(fig)
    rated = [nm for nm in by_order if np.isfinite(elo[index[nm]])]
    points = [(nm, steps[nm], round(float(elo[index[nm]]), 1)) for nm in rated]  # (name, step, Elo)
    elo_by_step = [list(p) for p in points]
    base_elo = {nm: float(elo[index[nm]]) for nm in names[len(ckpts) :] if np.isfinite(elo[index[nm]])}
    curve = save_figure(elo_vs_step_figure(points, base_elo, None), out / "elo_vs_step.png")
    corr = rank_correlation([steps[nm] for nm in rated], [elo[index[nm]] for nm in rated])

    mono = monotonic_check(
        by_order,
        {(a, b): wr[index[a], index[b]] for a in names for b in names if a != b and games[index[a], index[b]] > 0},
    )
    print(
        "\n".join(
            f"{nm:>24}  Elo {e:+7.1f}  OpenSkill {m.ordinal:6.2f}"
            for nm, e, m in sorted(zip(names, elo, members), key=lambda t: -np.nan_to_num(t[1], nan=-1e9))
        )
    )
    summary = {
        "players": names,
        "elo": {nm: round(float(e), 1) for nm, e in zip(names, elo) if np.isfinite(e)},
        "openskill": {
            m.id: {"mu": round(m.mu, 3), "sigma": round(m.sigma, 3), "ordinal": round(m.ordinal, 3)} for m in members
        },
        "win_rate": {
            names[i]: {names[j]: round(float(wr[i, j]), 3) for j in range(n) if j != i and games[i, j] > 0}
            for i in range(n)
        },
        "games_per_pair": args.battles,
        "sequential": args.sequential,
        "previous": args.previous if args.sequential else None,
        "pairs_played": len(pairs),
        "checkpoint_order": by_order,
        "elo_by_step": elo_by_step,
        "elo_step_corr": None if corr is None else round(corr, 3),
        "pairs_checked": mono["pairs"],
        **{k: mono[k] for k in ("monotonic", "each_beats_previous", "later_wins_share", "violations")},
        "showdown_errors": errors,
        "showdown_error_examples": error_examples,
        "unfinished": unfinished,
        "heatmap": str(heatmap),
        "elo_plot": str(curve),
        "wall_s": round(time.monotonic() - t0, 1),
    }
    (out / "tournament.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
