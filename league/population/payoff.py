"""Payoff table (decayed wins and games per ordered pair) and online ratings.

``PayoffTable.update(a, b, score)`` records one game from a's side (score 1 win,
0 loss, 0.5 tie) and the mirror for b. Before each update every count of that pair is
multiplied by ``decay`` (1.0 keeps all history), so the table follows the current
strength of members that keep learning. ``win_rate(a, b)`` is wins/games, and 0.5 for
a pair never played, as in AlphaStar's PFSP.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from openskill.models import PlackettLuce

from league.population.registry import Member


class PayoffTable:
    def __init__(self, decay: float = 1.0):
        if not 0 < decay <= 1:
            raise ValueError(f"decay must be in (0, 1], got {decay}")
        self.decay = decay
        self.wins: dict[tuple[str, str], float] = {}
        self.games: dict[tuple[str, str], float] = {}
        self.raw_games: dict[tuple[str, str], int] = {}  # undecayed counts, for reports

    def update(self, a: str, b: str, score: float) -> None:
        for x, y, s in ((a, b, score), (b, a, 1.0 - score)):
            k = (x, y)
            self.wins[k] = self.wins.get(k, 0.0) * self.decay + s
            self.games[k] = self.games.get(k, 0.0) * self.decay + 1.0
            self.raw_games[k] = self.raw_games.get(k, 0) + 1

    def win_rate(self, a: str, b: str) -> float:
        g = self.games.get((a, b), 0.0)
        return self.wins[(a, b)] / g if g > 0 else 0.5

    def matrix(self, ids: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """(win-rate matrix with 0.5 for unplayed pairs, raw game counts)."""
        n = len(ids)
        w = np.full((n, n), 0.5)
        g = np.zeros((n, n), dtype=np.int64)
        for i, a in enumerate(ids):
            for j, b in enumerate(ids):
                if i != j:
                    w[i, j] = self.win_rate(a, b)
                    g[i, j] = self.raw_games.get((a, b), 0)
        return w, g

    def to_json(self) -> dict:
        enc = lambda d: [[a, b, v] for (a, b), v in d.items()]  # noqa: E731
        return {"decay": self.decay, "wins": enc(self.wins), "games": enc(self.games), "raw_games": enc(self.raw_games)}

    @classmethod
    def from_json(cls, d: dict) -> PayoffTable:
        t = cls(d["decay"])
        t.wins = {(a, b): v for a, b, v in d["wins"]}
        t.games = {(a, b): v for a, b, v in d["games"]}
        t.raw_games = {(a, b): int(v) for a, b, v in d["raw_games"]}
        return t

    def save(self, path: str | Path) -> None:
        from league.atomic import atomic_write_text

        atomic_write_text(Path(path), json.dumps(self.to_json()))

    @classmethod
    def load(cls, path: str | Path) -> PayoffTable:
        return cls.from_json(json.loads(Path(path).read_text()))


class Ratings:
    """OpenSkill (Plackett-Luce) ratings kept on the registry's members, updated per game."""

    def __init__(self):
        self.model = PlackettLuce()

    def update(self, a: Member, b: Member, score: float) -> None:
        ra = self.model.create_rating([a.mu, a.sigma], name=a.id)
        rb = self.model.create_rating([b.mu, b.sigma], name=b.id)
        ranks: list[float] = [1, 1] if score == 0.5 else ([1, 2] if score > 0.5 else [2, 1])
        [[ra2], [rb2]] = self.model.rate([[ra], [rb]], ranks=ranks)
        a.mu, a.sigma, b.mu, b.sigma = ra2.mu, ra2.sigma, rb2.mu, rb2.sigma
        a.games += 1
        b.games += 1

    def fill_unplayed(self, win_rates: np.ndarray, games: np.ndarray, members: list[Member]) -> np.ndarray:
        """``win_rates`` (PayoffTable.matrix of ``members``) with each pair that never
        played, in either order, set to the members' predicted score from their ratings
        (OpenSkill's win probability), not 1/2. Read as even, a member that won the few
        pairs it played cannot lose to anyone: a Nash mixture over a sparse table put all
        its weight on such members (an hour of the full league regularised toward its update-200 and -300
        snapshots for ~4,800 updates, experiments/issue27_league_1206)."""
        out = np.array(win_rates, dtype=np.float64)
        g = np.asarray(games)
        rs = [self.model.create_rating([m.mu, m.sigma], name=m.id) for m in members]
        for i, j in zip(*np.nonzero((g + g.T) == 0), strict=True):
            if i < j:
                p = float(self.model.predict_win([[rs[i]], [rs[j]]])[0])
                out[i, j], out[j, i] = p, 1.0 - p
        return out
