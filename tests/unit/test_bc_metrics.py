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


def test_id_dropout_hides_only_known_species_item_ability_and_move_ids():
    from league.battle.obs import ID_TERA, LAYOUT, N_IDS, N_MONS, OBS_DIM, UNKNOWN_ID
    from league.learn.augment import drop_ids

    a, b, _ = LAYOUT["ids"]
    obs = torch.full((4, 16, OBS_DIM), 0.25)
    ids = torch.arange(4 * 16 * N_MONS * N_IDS).remainder(40).float().view(4, 16, N_MONS * N_IDS)
    obs[..., a:b] = ids
    assert drop_ids(obs, 0.0) is obs
    out = drop_ids(obs, 0.5, torch.Generator().manual_seed(0))
    before, after = obs[..., a:b].unflatten(-1, (N_MONS, N_IDS)), out[..., a:b].unflatten(-1, (N_MONS, N_IDS))
    changed = before != after
    assert torch.equal(obs[..., a:b], ids)  # the input is left as it was
    assert torch.equal(out[..., :a], obs[..., :a]) and torch.equal(out[..., b:], obs[..., b:])
    assert not changed[..., ID_TERA].any()  # tera type ids are not vocabulary ids
    assert not changed[before < 2].any()  # none (0) and unknown (1) stay
    assert (after[changed] == UNKNOWN_ID).all()
    known = (before[..., :ID_TERA] >= 2).sum().item()
    rate = changed.sum().item() / known  # ~4,600 Bernoulli(0.5) draws: sd 0.007
    assert 0.45 < rate < 0.55
