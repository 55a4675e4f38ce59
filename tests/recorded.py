"""Real observations for unit tests: the decisions of the battles recorded in
tests/data/recorded_battles.json (both sides of two battles with the shipped pool),
replayed and encoded as a live player would (no server needed)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch

from league.battle.replay import replay_decisions

DATA = Path(__file__).resolve().parent / "data" / "recorded_battles.json"


@lru_cache(maxsize=1)
def recordings() -> list[dict]:
    return json.loads(DATA.read_text())


@lru_cache(maxsize=2)
def decisions(own_tera: bool = True) -> list[list[tuple[np.ndarray, np.ndarray, bool]]]:
    """Per recorded side: (obs, mask padded to 2025, is_preview) of each decision
    (``own_tera``: as a network with ``model.own_tera`` reads them)."""
    return [replay_decisions(rec["lines"], rec["username"], own_tera) for rec in recordings()]


def recorded_steps(T: int, B: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """obs [T, B, OBS_DIM], mask [T, B, 2025], is_preview [T, B]: the first T decisions
    of B recorded sides (B <= 4)."""
    sides = decisions()
    assert B <= len(sides) and all(len(s) >= T for s in sides[:B])
    obs = torch.from_numpy(np.stack([np.stack([s[t][0] for s in sides[:B]]) for t in range(T)]))
    mask = torch.from_numpy(np.stack([np.stack([s[t][1] for s in sides[:B]]) for t in range(T)]))
    prev = torch.tensor([[s[t][2] for s in sides[:B]] for t in range(T)])
    return obs, mask, prev


# ---------------------------------------------------------------- recorded logs read back as replays
def replay_agreement(path, sheets: bool = True) -> dict:
    """league.bc.validate's check of one recorded log read back as a replay, as a dict:
    decisions, whole labels (``reconstructed``), partial ones, b labels, the lines of
    each disagreement (``wrong_mask``, ``wrong_label``, ``illegal``, ``wrong_count``),
    the rebuilt ``sides`` and the replay's ``counts``."""
    from league.bc.validate import agreement

    a = agreement(path, sheets)
    return {
        "decisions": a.counts.decisions,
        "reconstructed": a.counts.reconstructed,
        "partial": a.counts.partial,
        "b_labels": a.b_labels,
        "wrong_mask": a.wrong_mask,
        "wrong_label": a.wrong_label + a.illegal + a.wrong_count,
        "sides": a.sides,
        "counts": a.counts,
    }
