"""Behaviour-cloning metrics on hand-made tensors."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from league.bc.train import label_log_likelihood, legal_top1


def test_top1_takes_the_best_legal_action_only():
    logits = torch.tensor([[[9.0, 1.0, 2.0, 0.5]]])  # action 0 has the top logit but is illegal
    mask = torch.tensor([[[False, True, True, True]]])
    assert legal_top1(logits, mask, torch.tensor([[2]])).item() == 1.0
    assert legal_top1(logits, mask, torch.tensor([[0]])).item() == 0.0
    assert legal_top1(logits, mask, torch.tensor([[1]])).item() == 0.0


def test_top1_of_a_partial_label_is_the_best_legal_action_in_its_set():
    logits = torch.tensor([[[9.0, 1.0, 2.0, 3.0]]])  # best legal: action 3
    mask = torch.tensor([[[False, True, True, True]]])
    assert legal_top1(logits, mask, torch.tensor([[[False, True, False, True]]])).item() == 1.0
    assert legal_top1(logits, mask, torch.tensor([[[True, True, True, False]]])).item() == 0.0


def test_label_log_likelihood_sums_the_policy_over_the_label_set():
    """log sum_{a in L} pi(a), hand-computed: pi = (0.1, 0.2, 0.3, 0.4)."""
    from league.learn.rnad import legal_log_policy

    logits = torch.log(torch.tensor([0.1, 0.2, 0.3, 0.4]))
    every = torch.ones(4, dtype=torch.bool)
    table = [  # (legal, label, log-likelihood)
        (every, [False, True, False, True], math.log(0.6)),
        (every, [False, False, True, False], math.log(0.3)),  # a whole label: log pi(a)
        (every, [True, True, True, True], 0.0),
        (torch.tensor([True, True, True, False]), [False, True, False, False], math.log(2 / 6)),  # renormalised
    ]
    for legal, label, want in table:
        got = label_log_likelihood(legal_log_policy(logits, legal), torch.tensor(label) & legal)
        assert abs(got.item() - want) < 1e-6, (label, got.item(), want)


def test_a_partial_turn_label_is_the_joint_policy_marginalised_over_the_unknown_slot():
    """pi(a, b) = p(a) q(b) over the 45 x 45 joint orders: slot a's order 1 shown, slot b's not:
    log sum_b pi(1, b) = log p(1) = log 0.3."""
    from league.battle.actions import JOINT_ACTIONS, SLOT_ACTIONS
    from league.learn.rnad import legal_log_policy

    p = torch.zeros(SLOT_ACTIONS)
    p[[0, 1, 2]] = torch.tensor([0.5, 0.3, 0.2])
    q = torch.zeros(SLOT_ACTIONS)
    q[[0, 44]] = torch.tensor([0.6, 0.4])
    joint = torch.outer(p, q).reshape(JOINT_ACTIONS)
    legal = joint > 0
    logits = torch.log(joint.clamp(min=1e-30))
    label = torch.zeros(SLOT_ACTIONS, SLOT_ACTIONS, dtype=torch.bool)
    label[1, :] = True
    got = label_log_likelihood(legal_log_policy(logits, legal), label.reshape(-1) & legal)
    assert abs(got.item() - math.log(0.3)) < 1e-5
    with pytest.raises(AssertionError):
        label_log_likelihood(torch.zeros(2, 4), torch.zeros(4, dtype=torch.bool))


def test_partial_labels_travel_through_a_chunk_into_the_batch():
    """A chunk stores the label sets (bit-packed) only when some label is partial; the batch's
    ``labels`` are each step's set: the one action of a whole label, the set of a partial one."""
    from league.battle.actions import JOINT_ACTIONS
    from league.battle.obs import OBS_DIM
    from league.bc.dataset import SideTrajectory, _pack
    from league.bc.train import _batch, _trajectories

    def traj(partial: bool) -> SideTrajectory:
        t = SideTrajectory("human", 1.0, "team")
        for k, action in enumerate((5, 7)):
            t.obs.append(np.zeros(OBS_DIM, dtype=np.float16))
            mask = np.zeros(JOINT_ACTIONS, dtype=bool)
            mask[[5, 7, 8, 9]] = True
            t.mask.append(mask)
            t.is_preview.append(False)
            t.actions.append(action)
            label = None
            if partial and k == 1:
                label = np.zeros(JOINT_ACTIONS, dtype=bool)
                label[[7, 8]] = True
            t.labels.append(label)
        return t

    assert "labels" not in _pack([traj(False)])
    chunk = _pack([traj(False), traj(True)])
    b = _batch(_trajectories(chunk), ("human",), "cpu")
    assert b["labels"].shape == (2, 2, JOINT_ACTIONS)
    sets = [[set(np.flatnonzero(b["labels"][s, k].numpy())) for k in range(2)] for s in range(2)]
    assert sets == [[{5}, {5}], [{7}, {7, 8}]]  # [step][trajectory]
    whole = _batch(_trajectories(_pack([traj(False)])), ("human",), "cpu")
    assert [set(np.flatnonzero(whole["labels"][s, 0].numpy())) for s in range(2)] == [{5}, {7}]


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
