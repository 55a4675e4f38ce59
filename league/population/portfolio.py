"""The main learner's reference portfolio, pure parts: which frozen members to keep as
references (strategies ``recent``, ``best``, ``diverse``, ``nash``) and which one to
regularise toward (the closest: minimum KL(pi || pi_ref) on the batch), after the
portfolio R-NaD of ../shared/seeds/rl2-rnad-league-guide.md."""

from __future__ import annotations

from typing import Sequence

import numpy as np

STRATEGIES = ("recent", "best", "diverse", "nash")


def choose_portfolio(candidates: Sequence[str], size: int, strategy: str, *, created: dict[str, int] | None = None,
                     rating: dict[str, float] | None = None, nash: dict[str, float] | None = None,
                     win_rates: np.ndarray | None = None) -> list[str]:
    """Up to ``size`` references among ``candidates`` (frozen members).

    recent:  the newest by creation update;
    best:    the highest rated;
    nash:    the largest Nash weights (rating breaks ties);
    diverse: greedy farthest points: the best rated first, then each time the candidate
             whose row of win rates (``win_rates[i, :]``: candidate i against any common
             set of opponents) is furthest (L1, mean) from its nearest chosen one.
    """
    ids = list(candidates)
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown portfolio strategy {strategy!r}: one of {STRATEGIES}")
    if size <= 0 or not ids:
        return []
    rating = rating or {}
    if strategy == "recent":
        created = created or {}
        return sorted(ids, key=lambda m: created.get(m, 0), reverse=True)[:size]
    by_rating = sorted(ids, key=lambda m: rating.get(m, 0.0), reverse=True)
    if strategy == "best":
        return by_rating[:size]
    if strategy == "nash":
        nash = nash or {}
        return sorted(ids, key=lambda m: (nash.get(m, 0.0), rating.get(m, 0.0)), reverse=True)[:size]
    w = np.asarray(win_rates, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != len(ids):
        raise ValueError(f"diverse needs one row of win rates per candidate ({len(ids)}), got shape {w.shape}")
    index = {m: i for i, m in enumerate(ids)}
    chosen = [by_rating[0]]
    while len(chosen) < min(size, len(ids)):
        rest = [m for m in ids if m not in chosen]
        dist = [min(np.abs(w[index[m]] - w[index[c]]).mean() for c in chosen) for m in rest]
        chosen.append(rest[int(np.argmax(dist))])
    return chosen


def closest_reference(kls: Sequence[float]) -> int:
    """Index of the reference to regularise toward: the smallest KL(pi || pi_ref)."""
    k = np.asarray(kls, dtype=np.float64)
    if k.size == 0:
        raise ValueError("empty portfolio")
    if not np.all(np.isfinite(k)):
        raise ValueError(f"KL to a reference is not finite: {k.tolist()}")
    return int(np.argmin(k))
