"""A per-team-pair baseline: the mean return of the battles this agent played with the
same two teams, for PPO's advantage (``learner.rnad.ppo_advantage=group``).

Why: between two fixed players the team pair decides most of a battle's outcome
(experiments/issue27_matchups: ~0.9 of the per-pair variance, ~0.44 of a battle's), and a
value that has to read the matchup from the observation leaves much of it in the
advantage. A group-relative baseline (GRPO's, RLOO's) takes it out directly: a battle's
return minus what battles of the same pair returned before it. It is built only from
earlier battles, so it never depends on the actions it judges (the policy gradient stays
unbiased whatever it reads).

The mean is the plain running mean for a pair's first ``1 / rate`` battles, then an
exponential one at ``rate`` (it follows the policy as it changes). A pair never seen
reads the mean over all pairs, as does key 0 (a battle without team preview). It is part
of the learner's checkpoint: a resumed run does not start it over.
"""

from __future__ import annotations

import torch


class PairBaseline:
    def __init__(self, rate: float = 0.05):
        if not 0.0 < rate <= 1.0:
            raise ValueError(f"learner.rnad.group_rate must be in (0, 1], got {rate}")
        self.rate = rate
        self.mean: dict[int, float] = {}
        self.count: dict[int, int] = {}
        self.all_mean = 0.0
        self.all_count = 0

    def _step(self, n: int) -> float:
        return max(self.rate, 1.0 / n)

    def lookup(self, keys: list[int]) -> list[float]:
        """Each key's baseline now (before this batch's battles count)."""
        return [self.mean.get(k, self.all_mean) if k else self.all_mean for k in keys]

    def update(self, keys: list[int], returns: list[float]) -> None:
        """Count one battle per (key, return)."""
        for k, g in zip(keys, returns):
            self.all_count += 1
            self.all_mean += self._step(self.all_count) * (g - self.all_mean)
            if not k:
                continue
            n = self.count.get(k, 0) + 1
            self.count[k] = n
            m = self.mean.get(k, 0.0)
            self.mean[k] = m + self._step(n) * (g - m)

    def __len__(self) -> int:
        return len(self.mean)

    def state_dict(self) -> dict[str, torch.Tensor]:
        keys = sorted(self.mean)
        return {
            "keys": torch.tensor(keys, dtype=torch.long),
            "mean": torch.tensor([self.mean[k] for k in keys], dtype=torch.float64),
            "count": torch.tensor([self.count[k] for k in keys], dtype=torch.long),
            "all": torch.tensor([self.all_mean, float(self.all_count)], dtype=torch.float64),
        }

    def load_state_dict(self, sd: dict[str, torch.Tensor]) -> None:
        keys, mean, count = sd["keys"].tolist(), sd["mean"].tolist(), sd["count"].tolist()
        if not len(keys) == len(mean) == len(count):
            raise ValueError(f"a pair baseline of {len(keys)} keys, {len(mean)} means and {len(count)} counts")
        self.mean = dict(zip(keys, mean))
        self.count = dict(zip(keys, count))
        self.all_mean, all_count = sd["all"].tolist()
        self.all_count = int(all_count)


def returns_to_go(reward: torch.Tensor, valid: torch.Tensor, gamma: float) -> torch.Tensor:
    """[T, B] the discounted sum of each step's rewards from it to its trajectory's end
    (0 on padded steps)."""
    out = torch.zeros_like(reward)
    acc = torch.zeros_like(reward[0])
    r = reward * valid
    for t in range(reward.shape[0] - 1, -1, -1):
        acc = r[t] + gamma * acc * valid[t]
        out[t] = acc
    return out * valid
