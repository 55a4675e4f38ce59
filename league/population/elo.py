"""Elo ratings of a round-robin by Bradley-Terry maximum likelihood (Hunter's MM
algorithm), the monotonic-improvement check of a sequence of checkpoints, and the
sequential tournament's pairs (each snapshot against the previous few and the
baselines: the coordinator's rolling tournament and ``tools.tournament --sequential``)."""

from __future__ import annotations

import math

import numpy as np


def bradley_terry_elo(
    wins: np.ndarray, games: np.ndarray, prior: float = 1.0, iters: int = 10000, tol: float = 1e-12
) -> np.ndarray:
    """Elo (mean 0) from ``wins[i, j]`` (i's score against j, ties counting 1/2) over
    ``games[i, j]``. ``prior`` adds that many tied games to every played pair so a
    player without a win keeps a finite rating (0 for the plain MLE)."""
    w = np.asarray(wins, dtype=np.float64)
    g = np.asarray(games, dtype=np.float64)
    n = w.shape[0]
    played = (g + g.T) > 0
    g = g + prior * played
    w = w + prior / 2.0 * played
    total = w.sum(axis=1)
    if np.any(total <= 0):
        raise ValueError("a player without any score: use prior > 0")
    off = g.copy()
    np.fill_diagonal(off, 0.0)
    p = np.ones(n)
    for _ in range(iters):
        denom = (off / (p[:, None] + p[None, :])).sum(axis=1)
        new = total / denom
        new /= math.exp(np.log(new).mean())
        if np.max(np.abs(new - p)) < tol:
            p = new
            break
        p = new
    elo = 400.0 * np.log10(p)
    return elo - elo.mean()


def monotonic_check(order: list[str], win_rate: dict[tuple[str, str], float]) -> dict:
    """Do later checkpoints beat earlier ones? ``order``: oldest..newest; ``win_rate[(a, b)]``:
    a's win rate against b, for the pairs that played (a pair absent from it is left
    out: a sequential tournament plays only neighbours). Returns the pairs checked, the
    share of (later, earlier) pairs the later one wins (> 0.5), the pairs it does not,
    and whether each beats its predecessor (over the consecutive pairs that played,
    counted in ``consecutive_pairs``)."""
    pairs, losses = 0, []
    for j in range(len(order)):
        for i in range(j):
            later, earlier = order[j], order[i]
            if (later, earlier) not in win_rate:
                continue
            pairs += 1
            if win_rate[(later, earlier)] <= 0.5:
                losses.append([later, earlier, round(win_rate[(later, earlier)], 3)])
    consec = [(order[k + 1], order[k]) for k in range(len(order) - 1) if (order[k + 1], order[k]) in win_rate]
    return {
        "pairs": pairs,
        "later_wins_share": (pairs - len(losses)) / pairs if pairs else 1.0,
        "each_beats_previous": all(win_rate[p] > 0.5 for p in consec),
        "consecutive_pairs": len(consec),
        "violations": losses,
        "monotonic": not losses,
    }


def elo_of(
    ids: list[str],
    wins: dict[tuple[str, str], float],
    games: dict[tuple[str, str], float],
    anchor: str | None = None,
    prior: float = 1.0,
) -> dict[str, float]:
    """Bradley-Terry Elo of the players ``ids`` from the games among them (``wins[(a, b)]``:
    a's score against b over ``games[(a, b)]``; pairs with a player outside ``ids`` are
    ignored). A player without games among them gets no rating. Mean 0, or ``anchor``'s
    rating 0 when it is rated (a fixed baseline: the scale stays put as players join)."""
    played = [i for i in ids if any(games.get((i, j), 0) > 0 for j in ids if j != i)]
    if len(played) < 2:
        return {}
    k = {x: n for n, x in enumerate(played)}
    w, g = np.zeros((len(played), len(played))), np.zeros((len(played), len(played)))
    for (a, b), n in games.items():
        if a in k and b in k and a != b and n > 0:
            g[k[a], k[b]] = n
            w[k[a], k[b]] = wins.get((a, b), 0.0)
    elo = bradley_terry_elo(w, g, prior=prior)
    if anchor in k:
        elo = elo - elo[k[anchor]]
    return {x: float(elo[k[x]]) for x in played}


def rank_correlation(x: list[float], y: list[float]) -> float | None:
    """Spearman's rank correlation (ties get their average rank); None for fewer than
    two points or a constant series. 1: y grows with x (Elo with training step)."""
    if len(x) < 2:
        return None

    def ranks(v):
        v = np.asarray(v, dtype=np.float64)
        order = np.argsort(v, kind="stable")
        r = np.empty(len(v))
        r[order] = np.arange(len(v), dtype=np.float64)
        for u in np.unique(v):  # ties: the mean of their ranks
            r[v == u] = r[v == u].mean()
        return r

    rx, ry = ranks(x), ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    den = math.sqrt(float((rx * rx).sum() * (ry * ry).sum()))
    return float((rx * ry).sum() / den) if den > 0 else None


def sequential_pairs(order: list[str], baselines: list[str], previous: int) -> list[tuple[str, str]]:
    """The sequential tournament: each snapshot (``order``: oldest..newest) against the
    ``previous`` snapshots before it (nearest first) and then every baseline, as
    (snapshot, opponent) pairs; O(n (previous + baselines)) pairs instead of the
    round-robin's O(n²), and every snapshot connected to the baselines' fixed scale."""
    out = []
    for j, s in enumerate(order):
        out += [(s, order[i]) for i in range(j - 1, max(-1, j - 1 - previous), -1)]
        out += [(s, b) for b in baselines]
    return out
