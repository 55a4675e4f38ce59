"""The main learner's reference portfolio, pure parts: which frozen members to keep as
references (strategies ``recent``, ``best``, ``diverse``, ``nash``) and what to
regularise toward, after the portfolio R-NaD of ../shared/seeds/rl2-rnad-league-guide.md.

``recent``, ``best``, ``diverse``: the closest reference on each batch (minimum
KL(pi || pi_ref), :func:`closest_reference`).

``nash``: every reference, each weighted by its Nash-mixture weight ``w_i``
(:func:`nash_portfolio`: the members in the Nash support with the largest weights, the
weights renormalised over them; the game is the one among the candidates,
LeagueManager.portfolio says why). The regulariser is the geometric mixture
``pi_reg ∝ prod_i pi_i^w_i`` (:func:`~league.learn.rnad.mixed_log_policy`), because

    sum_i w_i KL(pi || pi_i) = KL(pi || pi_reg) - log Z,   Z = sum_a prod_i pi_i(a)^w_i

and Z does not depend on pi: regularising toward pi_reg is regularising toward each
reference in proportion to its weight, the same objective R-NaD's own mix of its two
last regularisers (alpha) uses. Weighted, not sampled: sampling one reference per step
by w has this objective only in expectation, adds a random switch of target every step
and an RNG stream to checkpoint; weighting costs one forward per reference per step,
as the min-KL choice already does, and needs no device sync to decide.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from league.population.nash import NashError

STRATEGIES = ("recent", "best", "diverse", "nash")
MAX_SIZE = 5  # learner.portfolio.size: 0 (off) or 1..MAX_SIZE (each reference is a forward every step)
NASH_TOL = 1e-6  # a Nash weight at or below this is outside the support (nash.nash_mixture's tol)


def choose_portfolio(
    candidates: Sequence[str],
    size: int,
    strategy: str,
    *,
    created: dict[str, int] | None = None,
    rating: dict[str, float] | None = None,
    nash: dict[str, float] | None = None,
    win_rates: np.ndarray | None = None,
) -> list[str]:
    """Up to ``size`` references among ``candidates`` (frozen members).

    recent:  the newest by creation update;
    best:    the highest rated;
    nash:    the members of the Nash support (weight > NASH_TOL) with the largest
             weights (rating breaks ties); fewer than ``size`` when the support is
             smaller (a member of weight 0 would add nothing to the mixture);
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
        return [m for m, _ in nash_portfolio(ids, size, nash or {}, rating)]
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


def nash_portfolio(
    candidates: Sequence[str], size: int, nash: dict[str, float], rating: dict[str, float] | None = None
) -> list[tuple[str, float]]:
    """(member, weight) of up to ``size`` candidates in the Nash support, largest weight
    first (rating breaks ties), weights renormalised to sum 1 over the chosen ones.

    ``nash`` holds a Nash mixture, which may put weight on members that are not
    candidates: only the candidates' share is kept. Raises NashError when no candidate is in the support (the caller keeps its
    portfolio; nothing falls back to a uniform mixture)."""
    rating = rating or {}
    support = [m for m in candidates if nash.get(m, 0.0) > NASH_TOL]
    if not support:
        raise NashError(
            "no frozen member with a network is in the Nash support "
            f"(weights: {', '.join(f'{m} {w:.3f}' for m, w in sorted(nash.items()))})"
        )
    chosen = sorted(support, key=lambda m: (nash[m], rating.get(m, 0.0)), reverse=True)[:size]
    total = sum(nash[m] for m in chosen)
    return [(m, nash[m] / total) for m in chosen]


def closest_reference(kls: Sequence[float]) -> int:
    """Index of the reference to regularise toward: the smallest KL(pi || pi_ref)."""
    k = np.asarray(kls, dtype=np.float64)
    if k.size == 0:
        raise ValueError("empty portfolio")
    if not np.all(np.isfinite(k)):
        raise ValueError(f"KL to a reference is not finite: {k.tolist()}")
    return int(np.argmin(k))
