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
