"""Reward pipeline: what a learner optimises, built from a batch's terminal rewards and
observations.

    r_t = R * 1[t = last]                               terminal: +1 win, -1 loss, 0 tie
        + w * (gamma * Phi(s_{t+1}) - Phi(s_t))          potential-based shaping (w = shaping)
        + m * Phi(s_t) * 1[t = last]                     the margin (m = margin; not potential-based)

``Phi`` is read from the observation itself (league/battle/obs.py), so the simulator
stores nothing more and the learner can change the weight at will:

    Phi(s) = (hp_own - hp_opp) / 2 + (left_own - left_opp) / 2          in [-1, 1]

with hp_* the share of the four brought Pokemon's HP (a Pokemon not yet seen counts as
full) and left_* the share of them not fainted. The state after the last decision is
terminal and its potential is 0 (Ng, Harada & Russell 1999: with Phi(terminal) = 0 the
shaped game has the same optimal policies), so with gamma = 1 a trajectory's shaped
return telescopes to R + Phi(terminal) - Phi(s_0) = R - Phi(s_0), and Phi(s_0) = 0 at
team preview (every Pokemon at full HP). Shaping only changes what bootstrapped targets
see (v-trace with lambda < 1); with lambda = 1 the returns differ from the terminal
ones by -w Phi(s_t), a baseline.

Optional return normalisation (``normalize``) then divides every reward by a running
standard deviation of trajectory returns (:class:`ReturnNormalizer`).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from league.battle.obs import FIELD_FEATURES, MON_FEATURES, split

_HP, _SEEN, _PRESENT = (MON_FEATURES.index(k) for k in ("hp_frac", "brought_or_revealed", "present"))
_OWN_LEFT, _OPP_LEFT = FIELD_FEATURES.index("own_left"), FIELD_FEATURES.index("opp_left")
BROUGHT = 4


@dataclass
class RewardConfig:
    shaping: float = 0.0  # weight w of the potential-based term; 0: terminal reward only
    # Divide rewards by a running standard deviation of trajectory returns (EMA over
    # batches, floor ``normalize_min_std``). Off by default: self-play returns are +-1
    # already, and the scale of the rewards is also the scale eta is measured against.
    normalize: bool = False
    # weight m of the margin: m * Phi(s_last) added to a trajectory's last step (s_last:
    # the state at its last decision, the nearest to the end the trajectory holds). Not
    # potential-based: it changes what is best (a wide win is worth more than a close
    # one), for a signal inside matchups whose outcome the policy no longer changes
    # (every sampled line of a lost pair loses, but some lose closer). 0: off.
    margin: float = 0.0
    normalize_decay: float = 0.99  # EMA decay of the return statistics (per batch)
    normalize_min_std: float = 0.1  # the running std is never taken below this


class ReturnNormalizer:
    """Running mean and second moment of trajectory returns (EMA, bias-corrected like
    Adam's moments); ``scale`` = 1 / max(std, min_std)."""

    def __init__(self, decay: float = 0.99, min_std: float = 0.1):
        self.decay, self.min_std = decay, min_std
        self.m1 = self.m2 = 0.0
        self.n = 0

    def update(self, returns: torch.Tensor) -> None:
        d = self.decay
        self.m1 = d * self.m1 + (1 - d) * float(returns.mean())
        self.m2 = d * self.m2 + (1 - d) * float((returns**2).mean())
        self.n += 1

    def std(self) -> float:
        if self.n == 0:
            return 1.0
        corr = 1 - self.decay**self.n
        m1, m2 = self.m1 / corr, self.m2 / corr
        return max(m2 - m1 * m1, 0.0) ** 0.5

    def scale(self) -> float:
        return 1.0 / max(self.std(), self.min_std)

    def state_dict(self) -> dict:
        return {"m1": self.m1, "m2": self.m2, "n": self.n}

    def load_state_dict(self, sd: dict) -> None:
        self.m1, self.m2, self.n = float(sd["m1"]), float(sd["m2"]), int(sd["n"])


def _hp_share(mons: torch.Tensor) -> torch.Tensor:
    """[..., 6, MON_F] one side's rows -> share of its four brought Pokemon's HP, those
    not brought or not yet revealed counting as full."""
    seen = mons[..., _SEEN] * mons[..., _PRESENT]
    n_seen = seen.sum(-1).clamp(max=BROUGHT)
    return ((mons[..., _HP] * seen).sum(-1) + (BROUGHT - n_seen)) / BROUGHT


def potential(obs: torch.Tensor) -> torch.Tensor:
    """Phi of each observation: obs [..., OBS_DIM] -> [...] in [-1, 1]."""
    v = split(obs)
    mons, field = v["mons"], v["field"]
    hp = _hp_share(mons[..., :6, :]) - _hp_share(mons[..., 6:, :])
    left = field[..., _OWN_LEFT] - field[..., _OPP_LEFT]
    return 0.5 * hp + 0.5 * left


def shaping_rewards(phi: torch.Tensor, valid: torch.Tensor, gamma: float = 1.0) -> torch.Tensor:
    """Per-step shaping gamma * Phi(s_{t+1}) - Phi(s_t) ([T, B]); Phi after a
    trajectory's last valid step is 0 (terminal), padding steps get 0."""
    ok = valid.to(phi.dtype)
    phi = phi * ok
    nxt = torch.zeros_like(phi)
    nxt[:-1] = phi[1:]
    return (gamma * nxt - phi) * ok


def build_rewards(
    terminal: torch.Tensor,
    obs: torch.Tensor,
    valid: torch.Tensor,
    cfg: RewardConfig,
    gamma: float = 1.0,
    normalizer: ReturnNormalizer | None = None,
) -> tuple[torch.Tensor, dict[str, float]]:
    """The reward the loss sees ([T, B]) and its terms for logging: ``terminal`` is the
    batch's reward with the outcome on each trajectory's last step. With ``normalizer``
    (cfg.normalize) the batch's undiscounted returns update it first, then every reward
    is multiplied by its scale."""
    n = valid.sum().clamp(min=1)
    terms = {"reward/terminal": float(terminal.sum() / valid.shape[1])}
    reward = terminal
    if cfg.shaping != 0.0:
        shaped = cfg.shaping * shaping_rewards(potential(obs), valid, gamma)
        terms["reward/shaping"] = float(shaped.sum() / n)
        terms["reward/shaping_abs"] = float(shaped.abs().sum() / n)
        reward = terminal + shaped
    if cfg.margin != 0.0:
        ok = valid.to(terminal.dtype)
        last = ok.clone()
        last[:-1] *= 1.0 - ok[1:]  # a valid step whose next one is not
        extra = cfg.margin * potential(obs) * last
        terms["reward/margin"] = float(extra.sum() / valid.shape[1])
        reward = reward + extra
    if normalizer is not None:
        normalizer.update(reward.sum(0))
        scale = normalizer.scale()
        terms["reward/return_std"] = normalizer.std()
        terms["reward/scale"] = scale
        reward = reward * scale
    return reward, terms
