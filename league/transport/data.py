"""The data the simulator hands the learner: a :class:`Trajectory` (one side of one
battle, as played) and a :class:`Batch` (trajectories right-padded, time-major, as a
learner trains on them). Below both ``league.sim`` and ``league.learn``: neither imports
the other (league/transport/experience.py carries one to the other)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields

import numpy as np
import torch


@dataclass
class Trajectory:
    agent: str
    version: int  # policy version that produced the first step
    obs: list[np.ndarray] = field(default_factory=list)
    mask: list[np.ndarray] = field(default_factory=list)
    is_preview: list[bool] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    logp: list[float] = field(default_factory=list)
    reward: float = 0.0
    opponent: str = ""
    # Self-play pairing (rnad.opponent_kl): both seats of a battle played by the learning
    # policy itself carry the same nonzero key; ``order`` keys each step within the battle.
    battle: int = 0
    order: list[int] = field(default_factory=list)
    # The team pair this side played (its own six and the foe's six, as seen at team
    # preview; ``team_pair_key``), for a per-pair baseline (rnad.ppo_advantage=group); 0: unknown.
    group: int = 0
    # The look-ahead's pick per step (sim.search_share, league/learn/search_target.py): the
    # joint action a one-turn search preferred among the network's likeliest, -1 where the
    # step was not searched; empty: no step was.
    target: list[int] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.actions)


@dataclass
class Batch:
    """Right-padded trajectories, time-major. A = 2025 (preview steps use 0..89)."""

    obs: torch.Tensor  # [T, B, OBS_DIM] float32
    mask: torch.Tensor  # [T, B, A] bool
    is_preview: torch.Tensor  # [T, B] bool
    actions: torch.Tensor  # [T, B] long
    mu_logp: torch.Tensor  # [T, B] float32, behaviour log-prob of the taken action
    reward: torch.Tensor  # [T, B] float32 (terminal only by default)
    valid: torch.Tensor  # [T, B] bool
    # For rnad.opponent_kl: battle key per trajectory (0: no self-play partner) and each
    # step's key within its battle (turn * 8 + decisions already taken that turn).
    battle: torch.Tensor | None = None  # [B] long
    order: torch.Tensor | None = None  # [T, B] long
    group: torch.Tensor | None = None  # [B] long: each trajectory's team-pair key (Trajectory.group)
    target: torch.Tensor | None = None  # [T, B] long: the look-ahead's pick (Trajectory.target), -1: none

    def to(self, device) -> Batch:
        out = copy.copy(self)
        for f in fields(self):
            if (x := getattr(self, f.name)) is not None:
                setattr(out, f.name, x.to(device, non_blocking=True))
        return out
