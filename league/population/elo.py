"""Elo ratings of a round-robin by Bradley-Terry maximum likelihood (Hunter's MM
algorithm), and the monotonic-improvement check of a sequence of checkpoints."""

from __future__ import annotations

import math

import numpy as np


def bradley_terry_elo(wins: np.ndarray, games: np.ndarray, prior: float = 1.0, iters: int = 10000,
                      tol: float = 1e-12) -> np.ndarray:
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
    p = np.ones(n)
    for _ in range(iters):
        denom = np.array([sum(g[i, j] / (p[i] + p[j]) for j in range(n) if j != i and g[i, j] > 0) for i in range(n)])
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
    a's win rate against b. Returns the share of (later, earlier) pairs the later one
    wins (> 0.5), the pairs it does not, and whether each beats its predecessor."""
    pairs, losses = 0, []
    for j in range(len(order)):
        for i in range(j):
            later, earlier = order[j], order[i]
            pairs += 1
            if win_rate[(later, earlier)] <= 0.5:
                losses.append([later, earlier, round(win_rate[(later, earlier)], 3)])
    consecutive = all(win_rate[(order[k + 1], order[k])] > 0.5 for k in range(len(order) - 1))
    return {"pairs": pairs, "later_wins_share": (pairs - len(losses)) / pairs if pairs else 1.0,
            "each_beats_previous": consecutive, "violations": losses, "monotonic": not losses}
