"""Shared-memory trajectory slots -> time-major padded batches (pure tensor logic)."""

from __future__ import annotations

import numpy as np
import torch

from league.battle.actions import JOINT_ACTIONS
from league.battle.obs import OBS_DIM
from league.sim.experience import SharedExperience, SlotMessage
from league.sim.policy import Trajectory, pad_preview_mask


def _traj(T: int, reward: float, fill: float) -> Trajectory:
    t = Trajectory("main", version=3, reward=reward)
    for i in range(T):
        m = np.zeros(JOINT_ACTIONS, bool)
        m[i] = m[i + 1] = True
        t.obs.append(np.full(OBS_DIM, fill + i, np.float32))
        t.mask.append(m)
        t.is_preview.append(i == 0)
        t.actions.append(i + 1)
        t.logp.append(-0.5)
    return t


def test_batch_is_time_major_padded_with_terminal_reward():
    exp = SharedExperience(n_slots=4, t_max=8)
    exp.write(2, _traj(3, 1.0, 10.0))
    exp.write(0, _traj(5, -1.0, 20.0))
    b = exp.batch([2, 0])
    assert b.obs.shape == (5, 2, OBS_DIM) and b.mask.shape == (5, 2, JOINT_ACTIONS)
    assert b.valid[:, 0].tolist() == [True, True, True, False, False] and b.valid[:, 1].all()
    assert b.reward[:, 0].tolist() == [0, 0, 1.0, 0, 0] and b.reward[:, 1].tolist() == [0, 0, 0, 0, -1.0]
    assert b.obs[2, 0, 0] == 12.0 and b.obs[4, 1, 0] == 24.0
    assert b.actions[:, 0].tolist() == [1, 2, 3, 0, 0]
    assert b.is_preview[0].all() and not b.is_preview[1:].any()
    # every step, padding included, has at least one legal action (finite log-softmax)
    assert b.mask.any(-1).all()
    assert b.mask[3, 0].sum() == 1 and b.mask[3, 0, 0]


def test_too_long_trajectory_is_refused_and_messages_round_trip():
    exp = SharedExperience(n_slots=1, t_max=4)
    try:
        exp.write(0, _traj(5, 1.0, 0.0))
    except ValueError as e:
        assert "t_max" in str(e)
    else:
        raise AssertionError("expected ValueError")
    m = SlotMessage(1, "main", 7, 12, -1.0, "self")
    assert SlotMessage.from_wire(m.to_wire()) == m


def test_preview_mask_padding():
    m = np.zeros(90, bool)
    m[[0, 89]] = True
    p = pad_preview_mask(m)
    assert p.shape == (JOINT_ACTIONS,) and p.sum() == 2 and p[89] and not p[90:].any()
    assert torch.from_numpy(p).dtype == torch.bool
