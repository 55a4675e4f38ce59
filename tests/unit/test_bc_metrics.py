"""Behaviour-cloning metrics on hand-made tensors."""

from __future__ import annotations

import torch

from league.bc.train import legal_top1


def test_top1_takes_the_best_legal_action_only():
    logits = torch.tensor([[[9.0, 1.0, 2.0, 0.5]]])  # action 0 has the top logit but is illegal
    mask = torch.tensor([[[False, True, True, True]]])
    assert legal_top1(logits, mask, torch.tensor([[2]])).item() == 1.0
    assert legal_top1(logits, mask, torch.tensor([[0]])).item() == 0.0
    assert legal_top1(logits, mask, torch.tensor([[1]])).item() == 0.0


def test_heldout_split_is_fixed_and_never_empty():
    from league.bc.dataset import heldout_names
    names = [f"battle-{i}" for i in range(11)]
    held = heldout_names(names, 0.3)
    assert len(held) == 3 and held <= set(names)
    assert heldout_names(list(reversed(names)), 0.3) == held  # order does not matter
    assert len(heldout_names(names[:2], 0.1)) == 1  # tiny sets still get one held-out battle
    assert len(heldout_names(names[:2], 0.9)) == 1  # ... and keep one to train on
    assert heldout_names(names[:1], 0.5) == set() and heldout_names(names, 0.0) == set()
