"""Round-robin tournament between checkpoints (and baselines) on a fresh fleet.

    python -m tools.tournament CKPT [CKPT ...] [--baselines random,maxdamage] [-n BATTLES_PER_PAIR]
                               [--teams DIR] [--servers K] [--concurrency C] [--greedy] [--out DIR]
                               [--save-replays DIR]

Every pair plays n battles (teams drawn per battle from the pool). Prints a table and,
as its last line, JSON: players, Elo (Bradley-Terry maximum likelihood, mean 0, one
tie added per pair), OpenSkill (mu, sigma, ordinal), the win-rate matrix, games,
Showdown errors, the heat-map path, and the monotonic-improvement check over the
checkpoints in training order (``monotonic``: every later checkpoint beats every
earlier one; ``each_beats_previous``; ``later_wins_share``).
"""

from __future__ import annotations

import asyncio
import json
import signal
import tempfile
import time
from itertools import combinations
from pathlib import Path

import numpy as np


def _sigterm(*_):
    raise SystemExit(143)


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
    from league.population.elo import bradley_terry_elo, monotonic_check
    from league.population.payoff import Ratings
    from league.population.registry import Member
    from league.showdown import ShowdownSetupError, locate_showdown, make_fleet
    from league.specs import player_factory
    from league.teams import TeamPoolError, TeamRepository

    from tools import cli
    from tools.battle import replays_to

    ap = cli.parser("python -m tools.tournament", __doc__)
    ap.add_argument("checkpoints", nargs="+",
                    help="league checkpoint files, in training order (read from them when they all record it)")
    ap.add_argument("--baselines", default="random,maxdamage", help="comma-separated fixed players ('' for none)")
    cli.add_battles(ap, 50, "battles per pair")
    cli.add_teams(ap)
    cli.add_format(ap)
    cli.add_fleet(ap)
    ap.add_argument("--greedy", action="store_true", help="network players take the most likely action")
    cli.add_seed(ap)
    cli.add_save_replays(ap)
    cli.add_out(ap, "where the heat-map and JSON go (default: runs/tournament/<time>)")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, _sigterm)

    # ---- check everything before starting anything
    cli.check_positive(**{"-n": args.battles, "--servers": args.servers, "--concurrency": args.concurrency})
    try:
        ckpts = [Path(c) for c in args.checkpoints]
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
        factories = [player_factory(s, args.seed + i, args.greedy) for i, s in enumerate(specs)]
        install = locate_showdown()
        teams = [t.packed for t in TeamRepository(install).load(args.format, args.teams)]
    except (PlayerSpecError, CheckpointError, ShowdownSetupError, TeamPoolError, ValueError) as e:
        cli.bad_input(str(e))
    out = Path(args.out or f"runs/tournament/{time.strftime('%Y%m%d-%H%M%S')}")
    out.mkdir(parents=True, exist_ok=True)

    n = len(specs)
    wins = np.zeros((n, n))
    games = np.zeros((n, n))
    errors = unfinished = 0
    members = [Member(id=nm, role="past" if s.startswith("checkpoint:") else s) for nm, s in zip(names, specs)]
    ratings = Ratings()
    t0 = time.monotonic()
    async def play_all(fleet) -> None:
        nonlocal errors, unfinished
        for k, (i, j) in enumerate(combinations(range(n), 2)):
            make_i = factories[i]
            if args.save_replays:  # one folder per pair (battle ids start again for each)
                make_i = replays_to(make_i, str(Path(args.save_replays) / f"{names[i]}_vs_{names[j]}"))
            r = await play_matches(fleet, make_i, factories[j], args.battles, teams, teams,
                                   battle_format=args.format, concurrency=args.concurrency, seed=args.seed + k)
            score = r.p1_wins + 0.5 * r.ties
            wins[i, j], wins[j, i] = score, r.battles - score
            games[i, j] = games[j, i] = r.battles
            errors += r.showdown_errors
            unfinished += r.unfinished
            outcomes = [1.0] * r.p1_wins + [0.0] * r.p2_wins + [0.5] * r.ties
            np.random.default_rng(k).shuffle(outcomes)  # interleave: OpenSkill depends on the order
            for s in outcomes:
                ratings.update(members[i], members[j], s)
            print(f"{names[i]:>24} vs {names[j]:<24} {score:5.1f} / {r.battles}", flush=True)

    with tempfile.TemporaryDirectory(prefix="tournament-") as tmp, \
            make_fleet(args.backend, args.servers, tmp, install=install) as fleet:  # server dirs: not beside the results
        asyncio.run(play_all(fleet))
    wr = np.where(games > 0, wins / np.maximum(games, 1), 0.5)
    np.fill_diagonal(wr, 0.5)
    elo = bradley_terry_elo(wins, games, prior=1.0)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(1.5 + 0.9 * n, 1.0 + 0.8 * n))
    ax.imshow(wr, cmap="RdBu", vmin=0, vmax=1)
    for i in range(n):
        for j in range(n):
            if i != j:
                ax.text(j, i, f"{wr[i, j]:.2f}", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(n), names, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(n), [f"{nm} ({e:+.0f})" for nm, e in zip(names, elo)], fontsize=8)
    ax.set_title("row's win rate vs column (Elo)")
    fig.tight_layout()
    heatmap = out / "tournament.png"
    fig.savefig(heatmap, dpi=90)

    ck_names = [names[i] for i, c in enumerate(ckpts)]
    by_order = [nm for nm, c in sorted(zip(ck_names, ckpts), key=lambda t: order.get(t[1], 0))]
    index = {nm: i for i, nm in enumerate(names)}
    mono = monotonic_check(by_order, {(a, b): wr[index[a], index[b]] for a in names for b in names if a != b})
    print("\n".join(f"{nm:>24}  Elo {e:+7.1f}  OpenSkill {m.ordinal:6.2f}"
                    for nm, e, m in sorted(zip(names, elo, members), key=lambda t: -t[1])))
    summary = {
        "players": names,
        "elo": {nm: round(float(e), 1) for nm, e in zip(names, elo)},
        "openskill": {m.id: {"mu": round(m.mu, 3), "sigma": round(m.sigma, 3), "ordinal": round(m.ordinal, 3)}
                      for m in members},
        "win_rate": {names[i]: {names[j]: round(float(wr[i, j]), 3) for j in range(n) if j != i} for i in range(n)},
        "games_per_pair": args.battles,
        "checkpoint_order": by_order,
        **{k: mono[k] for k in ("monotonic", "each_beats_previous", "later_wins_share", "violations")},
        "showdown_errors": errors,
        "unfinished": unfinished,
        "heatmap": str(heatmap),
        "wall_s": round(time.monotonic() - t0, 1),
    }
    (out / "tournament.json").write_text(json.dumps(summary, indent=1))
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
