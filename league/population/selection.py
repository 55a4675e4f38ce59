"""Population selection, pure parts (../shared/seeds/population-training-architecture.md):
beyond a cap, drop the weakest members by a score (Nash weight or rating) and clone the
strongest, optionally with weight noise (mutation). The main agent and the fixed
baselines are never dropped nor cloned."""

from __future__ import annotations

from dataclasses import dataclass

import torch

PROTECTED_ROLES = ("main", "random", "maxdamage", "heuristic", "bc")
SELECTION_SCORES = ("nash", "rating")  # SelectionConfig.by


@dataclass
class SelectionConfig:
    enabled: bool = False  # population selection: drop the weakest members past cap, clone the strongest
    every_updates: int = 2000  # main updates between two selections
    cap: int = 16  # members besides the main agent and the fixed baselines
    clones: int = 1  # the strongest to clone at each selection
    by: str = "nash"  # one of SELECTION_SCORES: Nash weight or rating
    noise_std: float = 0.0  # mutation: Gaussian noise, relative to each tensor's std


def plan_selection(
    scores: dict[str, float], roles: dict[str, str], cap: int, clones: int
) -> tuple[list[str], list[str]]:
    """(ids to drop, ids to clone). Only members whose role is not protected count toward
    ``cap``; after the selection there are at most ``cap`` of them, the clones included.
    Drops go weakest first; clones are the strongest survivors. Ties break by id."""
    pool = sorted((m for m in scores if roles[m] not in PROTECTED_ROLES), key=lambda m: (scores[m], m))
    if cap < 1:
        raise ValueError(f"selection cap must be >= 1, got {cap}")
    clones = max(0, min(clones, cap - 1))  # a clone needs room beside its parent
    n_drop = max(0, len(pool) + clones - cap)
    drop = pool[:n_drop]
    survivors = pool[n_drop:]
    clone = list(reversed(survivors))[:clones]
    return drop, clone


def mutate(state: dict[str, torch.Tensor], noise_std: float, generator: torch.Generator) -> dict[str, torch.Tensor]:
    """A copy of ``state`` with Gaussian noise of ``noise_std`` x each float tensor's std."""
    out = {}
    for k, v in state.items():
        if noise_std > 0 and torch.is_floating_point(v) and v.numel() > 1:
            scale = float(v.float().std()) * noise_std
            out[k] = v + scale * torch.randn(v.shape, generator=generator, dtype=v.dtype)
        else:
            out[k] = v.clone()
    return out
