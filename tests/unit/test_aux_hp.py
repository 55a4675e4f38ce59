"""The auxiliary HP-change task (model.aux_hp, learner.aux_hp_coef; league/learn/auxiliary.py)."""

from __future__ import annotations

import pytest
import torch

from league.battle.obs import OBS_DIM, split
from league.learn.auxiliary import HP, aux_hp_loss, hp_change_targets
from league.learn.learner import Learner, LearnerConfig
from league.model.net import ModelConfig, PolicyValueNet
from tests.unit.test_rnad import _batch

SMALL = dict(mon_dim=16, torso_dim=32, core_dim=32)


def _obs_with_hp(T: int, B: int, hp: dict[tuple[int, int, int], float]) -> torch.Tensor:
    obs = torch.zeros(T, B, OBS_DIM)
    mons = split(obs)["mons"]  # a view
    for (t, b, row), x in hp.items():
        mons[t, b, row, HP] = x
    return obs


def _table():
    """Trajectory 0: team preview, then two turns; trajectory 1: two turns, then padding."""
    T, B = 3, 2
    obs = _obs_with_hp(
        T,
        B,
        {
            (0, 0, 0): 0.5,  # preview: row 0 is not yet the same Pokemon (not counted)
            (1, 0, 0): 1.0,
            (2, 0, 0): 0.6,  # row 0 lost 0.4
            (1, 0, 6): 1.0,
            (2, 0, 6): 0.9,  # a foe lost 0.1
            (0, 1, 3): 0.8,
            (1, 1, 3): 0.2,  # row 3 lost 0.6
            (2, 1, 3): 0.9,  # padded: never read
        },
    )
    valid = torch.tensor([[True, True], [True, True], [True, False]])
    is_preview = torch.tensor([[True, False], [False, False], [False, False]])
    return obs, valid, is_preview


def test_targets_are_the_next_steps_hp_less_this_ones_on_counted_steps_only():
    obs, valid, is_preview = _table()
    target, ok = hp_change_targets(obs, valid, is_preview)
    # counted: (t1, traj 0) and (t0, traj 1); not preview, last steps or padding
    assert ok.tolist() == [[False, True], [True, False], [False, False]]
    expect = torch.zeros(3, 2, 12)
    expect[1, 0, 0], expect[1, 0, 6], expect[0, 1, 3] = -0.4, -0.1, -0.6
    torch.testing.assert_close(target, expect)


def test_loss_and_explained_variance_by_hand():
    obs, valid, is_preview = _table()
    pred = torch.zeros(3, 2, 12)
    pred[1, 0, 0] = -0.2  # 0.2 short of -0.4: 0.04
    pred[0, 1, 3] = -0.6  # exact
    pred[0, 0] = 3.0  # preview, last step and padding: never counted
    pred[2, 0] = 7.0
    pred[2, 1] = 5.0
    loss, ev = aux_hp_loss(pred, obs, valid, is_preview)
    # SSE 0.04 + 0.01 (row 6 predicted 0 for -0.1) over 2 steps x 12 Pokemon
    assert float(loss) == pytest.approx(0.05 / 24)
    # targets' sum of squares about their mean: 0.53 - 24 (-1.1 / 24)^2 = 0.4795833
    assert float(ev) == pytest.approx(1 - 0.05 / (0.53 - 1.21 / 24))
    perfect = hp_change_targets(obs, valid, is_preview)[0]
    assert float(aux_hp_loss(perfect, obs, valid, is_preview)[1]) == pytest.approx(1.0)
    none = torch.zeros(3, 2, dtype=torch.bool)
    assert [float(x) for x in aux_hp_loss(pred, obs, none, is_preview)] == [0.0, 0.0]


def test_the_network_predicts_on_valid_steps_as_without_padding():
    torch.manual_seed(0)
    net = PolicyValueNet(ModelConfig(**SMALL, aux_hp=True))
    b = _batch()
    h0 = net.initial_state(3)
    logits, v, _, hp = net(b.obs, b.mask, b.is_preview, h0, aux=True)
    assert hp.shape == (4, 3, 12) and hp.dtype == torch.float32
    plain, v_plain, _ = net(b.obs, b.mask, b.is_preview, h0)  # the head changes nothing else
    torch.testing.assert_close(plain, logits)
    torch.testing.assert_close(v_plain, v)
    valid = torch.ones(4, 3, dtype=torch.bool)
    valid[2:, 1] = False
    _, _, _, hp_v = net(b.obs, b.mask, b.is_preview, h0, valid=valid, aux=True)
    torch.testing.assert_close(hp_v[valid], hp[valid], rtol=1e-5, atol=1e-5)
    assert (hp_v[~valid] == 0).all()
    with pytest.raises(ValueError, match="model.aux_hp"):
        PolicyValueNet(ModelConfig(**SMALL))(b.obs, b.mask, b.is_preview, h0, aux=True)


def test_the_learner_trains_the_head_and_through_it_the_state():
    b = _batch()
    runs = {}
    for name, mc, coef in (
        ("aux", ModelConfig(**SMALL, aux_hp=True), 10.0),
        ("off", ModelConfig(**SMALL, aux_hp=True), 0.0),
        ("plain", ModelConfig(**SMALL), 10.0),
    ):
        L = Learner(LearnerConfig(lr=1e-3, aux_hp_coef=coef), mc, seed=4)
        before = {k: x.clone() for k, x in L.net.state_dict().items()}
        metrics = L.step(b)
        runs[name] = (L, before, metrics)
    L, before, m = runs["aux"]
    assert L.aux_hp and m["aux/hp_loss"] > 0 and "aux/hp_explained_variance" in m
    assert not torch.equal(L.net.state_dict()["aux_hp_head.2.weight"], before["aux_hp_head.2.weight"])
    for name in ("off", "plain"):
        assert not runs[name][0].aux_hp and not any(k.startswith("aux/") for k in runs[name][2])
    off_net, off_before = runs["off"][0].net.state_dict(), runs["off"][1]
    assert torch.equal(off_net["aux_hp_head.2.weight"], off_before["aux_hp_head.2.weight"])
    # the same seed and batch: the head's loss moved the shared torso differently
    assert not torch.allclose(L.net.state_dict()["torso.0.weight"], off_net["torso.0.weight"])
    # the head travels in the learner's checkpoint
    L2 = Learner(LearnerConfig(lr=1e-3), ModelConfig(**SMALL, aux_hp=True), seed=9)
    L2.load_state_dict(L.state_dict())
    torch.testing.assert_close(L2.net.state_dict()["aux_hp_head.0.weight"], L.net.state_dict()["aux_hp_head.0.weight"])


def test_networks_from_before_the_head_load_without_it():
    """A checkpoint's model settings from before model.aux_hp read as False (the shipped
    agents fit today's default model: tests/unit/test_augment.py), and a network without
    the head has no new weights."""
    import dataclasses

    from league.model.net import model_sizes

    stored = {k: v for k, v in dataclasses.asdict(ModelConfig(**SMALL)).items() if k != "aux_hp"}
    assert model_sizes(stored)["aux_hp"] is False
    assert not any(k.startswith("aux_hp_head") for k in PolicyValueNet(ModelConfig(**SMALL)).state_dict())
