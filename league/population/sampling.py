"""Per-episode opponent sampling: pure functions from win rates / pool sizes to
probabilities, and one seeded sampler composing them.

- ``pfsp_weights``: AlphaStar's prioritised fictitious self-play (Vinyals et al. 2019):
  f(p) over the learner's win rate p against each candidate, normalised;
  ``squared`` (1-p)^2 focuses on the hardest, ``variance`` p(1-p) on even matches,
  ``linear_capped`` min(0.5, 1-p) on everything not yet beaten, ``linear`` 1-p.
- ``recent_historical_probs``: a share over the last k snapshots, the rest over older
  ones, and an exploration share uniform over all history.
- ``curriculum_weights``: category weights (self, past, exploiters, fixed) that follow
  the main agent's win rates: base_c * (1 - wr_c + floor), renormalised over the
  categories that have members.
- ``TeamPairs``: the main agent's team and its opponent's, drawn together per battle by
  PFSP over the agent's win rate with that pair (``team_pair_probs``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from league.population.registry import CATEGORIES

PFSP = {
    "squared": lambda p: (1.0 - p) ** 2,
    "variance": lambda p: p * (1.0 - p),
    "linear": lambda p: 1.0 - p,
    "linear_capped": lambda p: np.minimum(0.5, 1.0 - p),
}
PFSP_WEIGHTINGS = tuple(PFSP)  # SamplerConfig.pfsp_weighting, LeagueExploiterConfig.pfsp_weighting
SAMPLING_STRATEGIES = ("self_play", "recent_historical", "pfsp", "curriculum")  # SamplerConfig.strategy


def pfsp_weights(win_rates: Sequence[float] | np.ndarray, weighting: str = "squared") -> np.ndarray:
    """Probabilities over candidates from the learner's win rate against each."""
    p = np.asarray(win_rates, dtype=np.float64)
    assert p.ndim == 1 and len(p) > 0, p.shape
    if weighting not in PFSP:
        raise ValueError(f"unknown PFSP weighting {weighting!r}: one of {PFSP_WEIGHTINGS}")
    w = PFSP[weighting](p)
    total = w.sum()
    if total < 1e-10:  # beats everyone: nothing to prioritise, play all alike
        return np.full(len(p), 1.0 / len(p))
    return w / total


def recent_historical_probs(n: int, k_recent: int, recent_share: float = 0.7, exploration: float = 0.15) -> np.ndarray:
    """Probabilities over n snapshots ordered oldest..newest."""
    assert n > 0 and k_recent > 0 and 0 <= recent_share <= 1 and 0 <= exploration <= 1
    probs = np.full(n, exploration / n)
    k = min(k_recent, n)
    old = n - k
    rest = 1.0 - exploration
    if old == 0:
        probs[-k:] += rest / k
    else:
        probs[-k:] += rest * recent_share / k
        probs[:old] += rest * (1 - recent_share) / old
    return probs


def curriculum_weights(win_rates: dict[str, float], base: dict[str, float], floor: float = 0.1) -> dict[str, float]:
    """Category -> probability; categories absent from ``win_rates`` have no members."""
    raw = {c: base.get(c, 0.0) * (1.0 - win_rates[c] + floor) for c in win_rates}
    total = sum(raw.values())
    if total <= 0:
        return {c: 1.0 / len(raw) for c in raw} if raw else {}
    return {c: v / total for c, v in raw.items()}


def team_pair_probs(
    wins: np.ndarray, games: np.ndarray, weighting: str, uniform: float, prior_games: float
) -> np.ndarray:
    """Probabilities over the pairs (own team i, foe team j), flattened, from the main
    agent's summed scores ``wins[i, j]`` over ``games[i, j]`` battles with that pair.

    A pair's rate is shrunk toward the mean over all pairs' battles (0.5 before any):
    (wins + m * mean) / (games + m) with m = ``prior_games``, so a pair never played
    weighs as an average one and one lost battle does not make a pair the hardest.
    PFSP's ``weighting`` of those rates, mixed with the uniform draw: a share ``uniform``
    of battles is drawn uniformly, so won pairs are still played (not forgotten)."""
    total = games.sum()
    mean = float(wins.sum() / total) if total > 0 else 0.5
    rates = (wins + prior_games * mean) / (games + prior_games)
    focus = pfsp_weights(rates.ravel(), weighting)
    return (1.0 - uniform) * focus + uniform / focus.size


class TeamPairs:
    """Draws (own team, foe team) index pairs over a pool of n teams for the main agent's
    battles, toward the pairs it loses (``team_pair_probs``); learns from ``report``.
    Each simulator shard keeps its own, in memory: a restarted shard starts uniform again."""

    def __init__(self, n: int, weighting: str, uniform: float, prior_games: float, seed: int = 0, window: float = 0.0):
        """``window``: 0, every battle counts alike; N, each result weighs (1 - 1/N) less
        with every later battle (a memory of ~N battles over all pairs: the rates follow
        a policy that changes)."""
        if n < 1:
            raise ValueError("team pairs need a pool of at least one team")
        self.n, self.weighting, self.uniform, self.prior_games = n, weighting, uniform, prior_games
        self.keep = 1.0 - 1.0 / window if window > 0 else 1.0
        self.wins = np.zeros((n, n))
        self.games = np.zeros((n, n))
        self.rng = random.Random(seed)
        self._cdf: np.ndarray | None = None  # recomputed at the first draw after a report

    def probs(self) -> np.ndarray:
        """[n, n]: the probability of each (own, foe) pair at the next draw."""
        return team_pair_probs(self.wins, self.games, self.weighting, self.uniform, self.prior_games).reshape(
            self.n, self.n
        )

    def draw(self) -> tuple[int, int]:
        if self._cdf is None:
            self._cdf = np.cumsum(self.probs().ravel())
        k = int(np.searchsorted(self._cdf, self.rng.random() * self._cdf[-1], side="right"))
        k = min(k, self.n * self.n - 1)
        return divmod(k, self.n)

    def report(self, own: int, foe: int, score: float) -> None:
        if self.keep < 1.0:
            self.wins *= self.keep
            self.games *= self.keep
        self.wins[own, foe] += score
        self.games[own, foe] += 1
        self._cdf = None

    def stats(self) -> dict[str, float]:
        """How focused the draw is: the effective number of pairs (1 / sum p^2) as a share
        of all pairs, and the share of pairs played at least once."""
        p = self.probs().ravel()
        return {"effective_share": float(1.0 / (p * p).sum() / p.size), "played_share": float((self.games > 0).mean())}


@dataclass
class SamplerConfig:
    strategy: str = "curriculum"  # one of SAMPLING_STRATEGIES
    pfsp_weighting: str = "squared"  # one of PFSP_WEIGHTINGS
    k_recent: int = 5  # recent_historical: the last k snapshots count as recent
    recent_share: float = 0.7  # recent_historical: share of the non-exploration draws going to the recent ones
    exploration: float = 0.15  # recent_historical: share drawn uniformly over all snapshots
    # base weights of the curriculum categories (keys among registry.CATEGORIES; one left out weighs 0)
    base: dict[str, float] = field(
        default_factory=lambda: {"self": 0.5, "past": 0.25, "exploiters": 0.15, "fixed": 0.1}
    )
    floor: float = 0.1  # curriculum: a category's weight is base * (1 - main's win rate + floor)
    # the main agent's training battles (both sides; a member with its own team plays it)
    # draw their teams from this archetype: a sub-directory of the pool; null: the whole pool
    team_tag: str | None = None
    # null: both sides' teams drawn uniformly from the pool, each on its own. One of the PFSP
    # weightings: each battle's pair (the agent's team, its opponent's) drawn together, by
    # that weighting of the agent's win rate with the pair against every opponent but
    # itself (league.population.sampling.team_pair_probs; the stream backend only)
    team_pfsp: str | None = None
    team_uniform: float = 0.25  # team_pfsp: the share of battles whose pair is drawn uniformly
    team_prior_games: float = 2.0  # team_pfsp: a pair's rate is shrunk toward the mean by this many battles
    # team_pfsp: 0, the pairs' rates count every battle alike; N, a result weighs (1 - 1/N)
    # less with every later battle of the agent's (rates over ~the last N battles)
    team_window: float = 0.0


class OpponentSampler:
    """Draws an opponent id for each episode of the main agent."""

    def __init__(self, cfg: SamplerConfig, seed: int = 0):
        if cfg.strategy not in SAMPLING_STRATEGIES:
            raise ValueError(f"unknown sampling strategy {cfg.strategy!r}: one of {SAMPLING_STRATEGIES}")
        if cfg.pfsp_weighting not in PFSP_WEIGHTINGS:
            raise ValueError(f"unknown PFSP weighting {cfg.pfsp_weighting!r}: one of {PFSP_WEIGHTINGS}")
        unknown = sorted(set(cfg.base) - set(CATEGORIES))
        if unknown:
            raise ValueError(f"unknown curriculum categories {unknown} in the sampler's base: one of {CATEGORIES}")
        self.cfg = cfg
        self.rng = random.Random(seed)
        self.last_weights: dict[str, float] = {}

    def _choice(self, ids: Sequence[str], probs: np.ndarray) -> str:
        return self.rng.choices(list(ids), weights=list(probs))[0]

    def sample(self, main: str, pools: dict[str, list[str]], win_rate) -> str:
        """``pools``: category -> member ids (``past`` ordered oldest..newest);
        ``win_rate(a, b)``: main's win rate against b (0.5 when unknown)."""
        cfg = self.cfg
        past = pools.get("past", [])
        if cfg.strategy == "self_play" or not any(pools.get(c) for c in ("past", "exploiters", "fixed")):
            return main
        if cfg.strategy == "recent_historical":
            if not past:
                return main
            return self._choice(
                past, recent_historical_probs(len(past), cfg.k_recent, cfg.recent_share, cfg.exploration)
            )
        if cfg.strategy == "pfsp":
            cands = [m for c in ("past", "exploiters", "fixed") for m in pools.get(c, [])]
            return self._choice(cands, pfsp_weights([win_rate(main, m) for m in cands], cfg.pfsp_weighting))
        # curriculum: pick a category by the main agent's win rates, then a member in it
        present = {c: ids for c, ids in pools.items() if ids}
        present.setdefault("self", [main])
        rates = {
            c: float(np.mean([win_rate(main, m) for m in ids])) if c != "self" else 0.5 for c, ids in present.items()
        }
        self.last_weights = curriculum_weights(rates, cfg.base, cfg.floor)
        cats = list(self.last_weights)
        cat = self._choice(cats, np.array([self.last_weights[c] for c in cats]))
        if cat == "self":
            return main
        ids = present[cat]
        if cat == "past":
            return self._choice(ids, recent_historical_probs(len(ids), cfg.k_recent, cfg.recent_share, cfg.exploration))
        return self._choice(ids, pfsp_weights([win_rate(main, m) for m in ids], cfg.pfsp_weighting))
