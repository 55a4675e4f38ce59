"""The reward pipeline: potential-based shaping on hand-built observations."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from league.battle.obs import FIELD_FEATURES, LAYOUT, MON_FEATURES, OBS_DIM
from league.learn.reward import ReturnNormalizer, RewardConfig, build_rewards, potential, shaping_rewards

HP, SEEN, PRESENT = (MON_FEATURES.index(k) for k in ("hp_frac", "brought_or_revealed", "present"))


def _obs(own_hp: list[float], opp_hp: list[float], own_left: float, opp_left: float) -> torch.Tensor:
    """One observation: our brought Pokemon's HP (rows 0..), the opponent's revealed ones'
    (rows 6..), the field's Pokemon-left shares."""
    o = torch.zeros(OBS_DIM)
    a, b, shape = LAYOUT["mons"]
    mons = o[a:b].view(shape)
    for row, hp in list(enumerate(own_hp)) + [(6 + i, hp) for i, hp in enumerate(opp_hp)]:
        mons[row, PRESENT], mons[row, SEEN], mons[row, HP] = 1.0, 1.0, hp
    mons[4:6, PRESENT] = 1.0  # our two left at home: present, not brought
    mons[6 + len(opp_hp) :, PRESENT] = 1.0  # their unrevealed ones: present, not seen
    fa = LAYOUT["field"][0]
    o[fa + FIELD_FEATURES.index("own_left")] = own_left
    o[fa + FIELD_FEATURES.index("opp_left")] = opp_left
    return o


def test_potential_hand_table():
    preview = _obs([], [], 1.0, 1.0)
    assert potential(preview).item() == 0.0  # nothing brought or seen: everyone full
    # ours 1, .5, 0 (fainted), 1 -> 2.5/4; theirs .2 and 0 seen, two unseen (full) -> 2.2/4
    mid = _obs([1.0, 0.5, 0.0, 1.0], [0.2, 0.0], 0.75, 0.75)
    assert potential(mid).item() == pytest.approx(0.5 * (2.5 - 2.2) / 4 + 0.5 * 0.0)
    lost_one_each = _obs([1.0, 1.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0], 0.75, 0.75)
    assert potential(lost_one_each).item() == pytest.approx(0.0)
    ahead = _obs([1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.5], 1.0, 0.25)
    assert potential(ahead).item() == pytest.approx(0.5 * (4 - 0.5) / 4 + 0.5 * 0.75)
    batch = torch.stack([torch.stack([preview, mid]), torch.stack([ahead, lost_one_each])])  # [2, 2, OBS_DIM]
    np.testing.assert_allclose(
        potential(batch).numpy(), [[0.0, potential(mid).item()], [potential(ahead).item(), 0.0]], atol=1e-6
    )


def test_shaping_is_potential_based():
    # two trajectories (T=4, and T=2 padded); Phi after the last step is terminal (0)
    phi = torch.tensor([[0.0, 0.0], [0.1, 0.3], [-0.2, 9.0], [0.4, 9.0]])
    valid = torch.tensor([[1, 1], [1, 1], [1, 0], [1, 0]]).bool()
    s = shaping_rewards(phi, valid, gamma=1.0)
    np.testing.assert_allclose(s.numpy(), [[0.1, 0.3], [-0.3, -0.3], [0.6, 0.0], [-0.4, 0.0]], atol=1e-6)
    terminal = torch.tensor([[0.0, 0.0], [0.0, -1.0], [0.0, 0.0], [1.0, 0.0]])
    obs = torch.stack(
        [
            torch.stack([_obs([], [], 1.0, 1.0)] * 2),
            torch.stack([_obs([1.0, 0.5, 1.0, 1.0], [], 1.0, 1.0), _obs([1.0] * 4, [0.0, 0.0], 1.0, 0.5)]),
            torch.stack([_obs([0.0, 0.5, 1.0, 1.0], [0.5], 0.75, 1.0)] * 2),
            torch.stack([_obs([0.0, 0.0, 1.0, 1.0], [0.5, 0.0], 0.5, 0.75)] * 2),
        ]
    )
    r, terms = build_rewards(terminal, obs, valid, RewardConfig(shaping=0.5))
    phi_obs = potential(obs) * valid
    # gamma = 1: the shaped return is the terminal return + w (Phi(end) - Phi(start)), Phi(end) = 0
    returns = r.sum(0)
    np.testing.assert_allclose(returns.numpy(), (terminal.sum(0) + 0.5 * (0.0 - phi_obs[0])).numpy(), atol=1e-6)
    # and the per-step terms are w (Phi(s_t+1) - Phi(s_t))
    np.testing.assert_allclose((r - terminal).numpy(), (0.5 * shaping_rewards(phi_obs, valid)).numpy(), atol=1e-6)
    assert (r[~valid] == 0).all()
    assert terms["reward/shaping"] == pytest.approx(float((r - terminal).sum() / valid.sum()))
    # with gamma < 1: gamma Phi(s_t+1) - Phi(s_t), by hand for the first trajectory
    g = shaping_rewards(phi, valid, gamma=0.5)
    np.testing.assert_allclose(g[:, 0].numpy(), [0.05, -0.2, 0.4, -0.4], atol=1e-6)
    # off: the terminal reward untouched
    r0, terms0 = build_rewards(terminal, obs, valid, RewardConfig())
    assert r0 is terminal and "reward/shaping" not in terms0


def test_the_margin_adds_m_phi_of_the_last_decision_to_the_last_step_only():
    # two trajectories: T=3, and T=2 padded; the outcome on each last step
    a0, a1, a2 = _obs([], [], 1.0, 1.0), _obs([1.0] * 4, [0.5], 1.0, 1.0), _obs([1.0, 1.0, 0.0, 0.0], [0.0], 0.5, 0.75)
    b0, b1 = _obs([], [], 1.0, 1.0), _obs([0.0, 0.5, 1.0, 1.0], [1.0, 1.0], 0.75, 1.0)
    obs = torch.stack([torch.stack([a0, b0]), torch.stack([a1, b1]), torch.stack([a2, b1])])
    valid = torch.tensor([[1, 1], [1, 1], [1, 0]]).bool()
    terminal = torch.tensor([[0.0, 0.0], [0.0, -1.0], [1.0, 0.0]])
    r, terms = build_rewards(terminal, obs, valid, RewardConfig(margin=0.4))
    # by hand: a2's Phi = .5 (hp 2/4 - (0 + 3 unseen)/4) + .5 (.5 - .75) = -.25;
    # b1's Phi = .5 ((2.5 - 4) / 4) + .5 (.75 - 1) = -.3125
    np.testing.assert_allclose(r.numpy(), [[0.0, 0.0], [0.0, -1.0 - 0.4 * 0.3125], [1.0 - 0.4 * 0.25, 0.0]], atol=1e-6)
    assert terms["reward/margin"] == pytest.approx(0.4 * (-0.25 - 0.3125) / 2)


def test_return_normalizer_hand_table():
    n = ReturnNormalizer(decay=0.5, min_std=0.1)
    assert n.std() == 1.0  # nothing seen: scale 1
    n.update(torch.tensor([1.0, -1.0]))
    # m1 = .5 * 0 = 0, m2 = .5 * 1 = .5; bias correction / (1 - .5): m1 0, m2 1 -> std 1
    assert n.std() == pytest.approx(1.0) and n.scale() == pytest.approx(1.0)
    n.update(torch.tensor([2.0, 2.0]))
    # m1 = .5 * 2 = 1, m2 = .5 * .5 + .5 * 4 = 2.25; / .75: 4/3, 3 -> var 3 - 16/9 = 11/9
    assert n.std() == pytest.approx((11 / 9) ** 0.5) and n.scale() == pytest.approx((9 / 11) ** 0.5)
    m = ReturnNormalizer(decay=0.5, min_std=0.1)
    m.update(torch.zeros(4))
    assert m.scale() == pytest.approx(10.0)  # the floor
    m.load_state_dict(n.state_dict())
    assert m.std() == n.std()


def test_build_rewards_scales_by_the_normalizer():
    terminal = torch.tensor([[0.0, 0.0], [4.0, -2.0]])
    valid = torch.ones(2, 2, dtype=torch.bool)
    obs = torch.zeros(2, 2, OBS_DIM)
    n = ReturnNormalizer(decay=0.5)
    r, terms = build_rewards(terminal, obs, valid, RewardConfig(normalize=True), normalizer=n)
    # returns 4, -2: m1 = 1 / .5 = 1, m2 = (.5 * 10) / .5 = 10 -> std 3
    assert terms["reward/return_std"] == pytest.approx(3.0) and terms["reward/scale"] == pytest.approx(1 / 3)
    np.testing.assert_allclose(r.numpy(), [[0, 0], [4 / 3, -2 / 3]], atol=1e-6)
