"""Nash analysis of the league's empirical payoff: pure functions of matrices.

The game is the symmetric zero-sum meta-game whose antisymmetric payoff is
``A[i, j] = W[i, j] - 1/2`` (W: row's win rate against column; for a pair never played,
PayoffTable.matrix gives 1/2 and the league's uses its ratings' prediction,
Ratings.fill_unplayed). Its Nash mixture p maximises v subject to ``(p^T A)_j >= v`` for every j,
``sum p = 1``, ``p >= 0``; solved as a linear programme by scipy's HiGHS. The value of a
symmetric zero-sum game is 0. Each member's *Nash average* is ``(A p)_i``, its expected
payoff against the mixture (Balduzzi et al. 2018, "Re-evaluating evaluation"): 0 on the
support, negative off it. A failed solve raises :class:`NashError` with the solver's
status; it never falls back to a uniform mixture.

``bootstrap_nash`` resamples every played pair's wins from a binomial on its game count
and re-solves, giving percentile intervals on the weights. ``replicator`` gives a
second view: the time-averaged discrete replicator dynamics from the uniform mixture.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog


class NashError(RuntimeError):
    pass


@dataclass
class NashResult:
    weights: np.ndarray  # the mixture over members
    value: float  # game value (0 for an antisymmetric payoff, up to solver tolerance)
    averages: np.ndarray  # Nash average of each member: (A p)_i
    status: str  # solver status text
    support: list[int]  # members with weight > tol


def antisymmetric(win_rates: np.ndarray) -> np.ndarray:
    """``A = (W - W^T) / 2``: the antisymmetric part of W - 1/2 (exact when W + W^T = 1)."""
    w = np.asarray(win_rates, dtype=np.float64)
    if w.ndim != 2 or w.shape[0] != w.shape[1]:
        raise ValueError(f"payoff must be a square matrix, got shape {w.shape}")
    return (w - w.T) / 2.0


def nash_mixture(win_rates: np.ndarray, tol: float = 1e-6) -> NashResult:
    """Maximin mixture of the symmetric zero-sum game with row win rates ``win_rates``."""
    a = antisymmetric(win_rates)
    n = a.shape[0]
    if n == 0:
        raise NashError("no members to solve for")
    if not np.all(np.isfinite(a)):
        raise NashError("payoff holds NaN or infinite entries")
    # variables [p_0..p_{n-1}, v]; minimise -v
    c = np.zeros(n + 1)
    c[-1] = -1.0
    a_ub = np.hstack([-a.T, np.ones((n, 1))])  # v - (p^T A)_j <= 0
    b_ub = np.zeros(n)
    a_eq = np.hstack([np.ones((1, n)), np.zeros((1, 1))])
    bounds = [(0.0, None)] * n + [(None, None)]
    res = linprog(c, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0], bounds=bounds, method="highs")
    if res.status != 0 or res.x is None:
        raise NashError(f"Nash LP failed: status {res.status} ({res.message})")
    p = np.clip(res.x[:n], 0.0, None)
    p /= p.sum()
    return NashResult(p, float(res.x[-1]), a @ p, str(res.message), [i for i in range(n) if p[i] > tol])


def bootstrap_nash(
    win_rates: np.ndarray, games: np.ndarray, n_boot: int = 200, seed: int = 0, level: float = 0.95
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals (low, high) of every member's Nash weight, resampling each
    played pair's wins ~ Binomial(games, win rate); a pair never played (no games either
    way) keeps its entry of ``win_rates`` (1/2 from PayoffTable.matrix, or a prediction
    such as Ratings.fill_unplayed's)."""
    w = np.asarray(win_rates, dtype=np.float64)
    g = np.rint(np.asarray(games, dtype=np.float64)).astype(np.int64)
    n = w.shape[0]
    rng = np.random.default_rng(seed)
    iu = np.triu_indices(n, 1)
    counts = np.maximum(g[iu], g.T[iu])
    rates = np.clip(w[iu], 0.0, 1.0)
    samples = np.empty((n_boot, n))
    for b in range(n_boot):
        wb = np.full((n, n), 0.5)
        played = counts > 0
        r = rates.copy()
        r[played] = rng.binomial(counts[played], rates[played]) / counts[played]
        wb[iu] = r
        wb.T[iu] = 1.0 - r
        np.fill_diagonal(wb, 0.5)
        samples[b] = nash_mixture(wb).weights
    q = (1.0 - level) / 2.0
    return np.quantile(samples, q, axis=0), np.quantile(samples, 1.0 - q, axis=0)


def replicator(win_rates: np.ndarray, steps: int = 20000, lr: float = 0.05) -> np.ndarray:
    """Time-averaged discrete replicator dynamics x <- x * exp(lr * (A x)) (normalised)
    from the uniform mixture: a second view of which members hold their ground."""
    a = antisymmetric(win_rates)
    n = a.shape[0]
    x = np.full(n, 1.0 / n)
    avg = np.zeros(n)
    for _ in range(steps):
        f = a @ x
        x = x * np.exp(lr * (f - f.max()))
        x /= x.sum()
        avg += x
    return avg / steps
