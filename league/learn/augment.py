"""Observation augmentation for learning (never for acting).

:func:`drop_ids` hides some of the vocabulary ids a Pokemon row carries (species, item,
ability, moves) as "unknown", the value an opponent's unrevealed item or move already
has: the network has to play from what the observation says of a Pokemon (its stats,
types, moves' power and effect, the turn analysis) as well as from its name. Teams the
network never trained on bring ids whose embeddings it never learned; hiding known ids
while learning is the regulariser for that (``learner.id_dropout`` for R-NaD,
``id_dropout`` in tools.bc).
"""

from __future__ import annotations

import torch

from league.battle.obs import ID_TERA, UNKNOWN_ID, split


def drop_ids(
    obs: torch.Tensor, p: float, generator: torch.Generator | None = None, per_trajectory: bool = False
) -> torch.Tensor:
    """OBS with each known species, item, ability and move id (above UNKNOWN_ID) of the
    ``ids`` block replaced by UNKNOWN_ID with probability P (a new tensor; none, unknown,
    the tera type and the other blocks untouched; OBS itself when P is 0).

    ``per_trajectory``: OBS is time-major ``[T, B, OBS_DIM]`` and one draw per trajectory,
    Pokemon row and id decides for every step (a name hidden at one decision stays hidden
    for the whole battle, as an unrevealed one does); otherwise each element draws alone."""
    if p <= 0.0:
        return obs
    out = obs.clone()
    ids = split(out)["ids"][..., :ID_TERA]  # a view: written in place below
    shape = (1, *ids.shape[1:]) if per_trajectory else ids.shape
    drop = (torch.rand(shape, generator=generator, device=ids.device) < p) & (ids > UNKNOWN_ID)
    ids[drop] = float(UNKNOWN_ID)
    return out
