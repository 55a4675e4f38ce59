"""The per-team-pair baseline (learner.rnad.ppo_advantage=group): its running means,
returns to go, the loss's advantage and the learner's use of it, by hand tables."""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace

import pytest
import torch

from league.learn.learner import Learner, LearnerConfig
from league.learn.pairs import PairBaseline, returns_to_go
from league.learn.rnad import RNaDLossConfig, rnad_loss
from league.model.net import ModelConfig
from league.sim.policy import team_pair_key
from tests.unit.test_rnad import _batch


def test_pair_means_run_plain_then_exponential_hand_table():
    """rate 0.25: a pair's mean is the plain running mean for its first 4 battles, then
    moves a quarter of the way: returns 1, -1, 1, 1, -1 give 1, 0, 1/3, 1/2, 1/8."""
    p = PairBaseline(rate=0.25)
    seen = []
    for g in (1.0, -1.0, 1.0, 1.0, -1.0):
        p.update([7], [g])
        seen.append(p.mean[7])
    assert seen == pytest.approx([1.0, 0.0, 1 / 3, 0.5, 0.125])
    assert p.count[7] == 5 and p.all_count == 5 and p.all_mean == pytest.approx(0.125)


def test_an_unseen_pair_and_key_0_read_the_mean_over_all_pairs():
    p = PairBaseline(rate=0.5)
    p.update([3, 0, 4], [1.0, -1.0, -1.0])  # key 0 counts only toward the mean over all
    assert len(p) == 2 and 0 not in p.mean
    # over all, at rate 0.5: 1, then (1 + -1) / 2 = 0, then 0 + 0.5 * (-1 - 0) = -0.5
    assert p.lookup([3, 4, 99, 0]) == pytest.approx([1.0, -1.0, -0.5, -0.5])


def test_pair_baseline_state_round_trips_and_bad_state_is_refused():
    p = PairBaseline(rate=0.1)
    p.update([3, 5, 3], [1.0, -1.0, 0.0])
    q = PairBaseline(rate=0.1)
    q.load_state_dict(p.state_dict())
    assert (q.mean, q.count, q.all_mean, q.all_count) == (p.mean, p.count, p.all_mean, p.all_count)
    bad = p.state_dict()
    bad["count"] = bad["count"][:1]
    with pytest.raises(ValueError, match="2 keys"):
        q.load_state_dict(bad)
    with pytest.raises(ValueError, match="group_rate"):
        PairBaseline(rate=0.0)


@pytest.mark.parametrize(
    "gamma, want", [(1.0, [[1.0, -1.0], [1.0, -1.0], [1.0, 0.0]]), (0.5, [[0.25, -0.5], [0.5, -1.0], [1.0, 0.0]])]
)
def test_returns_to_go_hand_table(gamma, want):
    """Two trajectories, 3 and 2 steps (the second padded), terminal rewards 1 and -1."""
    reward = torch.tensor([[0.0, 0.0], [0.0, -1.0], [1.0, 0.0]])
    valid = torch.tensor([[True, True], [True, True], [True, False]])
    assert torch.allclose(returns_to_go(reward, valid, gamma), torch.tensor(want))


def test_group_advantage_is_what_ppo_pushes_by_hand_table():
    """Two steps, 3 legal actions, uniform pi = mu (ratio 1), eta 0: PPO's surrogate is
    -mean(adv) with adv the given returns less baselines, [0.5, -0.25]: -0.125; the value
    plays no part (it would give td's -0.7 on the same numbers: test_rnad)."""
    T, B, A = 2, 1, 3
    logits = torch.zeros(T, B, A, requires_grad=True)
    args = dict(
        mask=torch.ones(T, B, A, dtype=torch.bool),
        valid=torch.ones(T, B, dtype=torch.bool),
        actions=torch.tensor([[0], [2]]),
        mu_logp=torch.full((T, B), math.log(1 / 3)),
        reward=torch.tensor([[0.0], [1.0]]),
        cfg=RNaDLossConfig(eta=0.0, policy_loss="ppo", ppo_advantage="group"),
    )
    v = torch.tensor([[0.2], [0.4]])
    _, terms = rnad_loss(
        logits, v.clone().requires_grad_(), v, logits.detach(), logits.detach(), 1.0, **args,
        group_adv=torch.tensor([[0.5], [-0.25]]),
    )  # fmt: skip
    assert float(terms["loss/policy"].detach()) == pytest.approx(-0.125)
    assert float(terms["ppo/adv_abs"]) == pytest.approx(0.375)
    with pytest.raises(ValueError, match="group_adv"):
        rnad_loss(logits, v.clone().requires_grad_(), v, logits.detach(), logits.detach(), 1.0, **args)


def test_the_learner_judges_each_battle_against_earlier_battles_of_its_pair():
    """_batch's three trajectories end 1, -1, 1; pairs 5, 5, 9. First update: nothing seen,
    every baseline 0, the pairs explain nothing (0); a second epoch on that batch reads
    the same baselines and counts nothing again. Then 5's mean is 0 and 9's is 1: on the
    same battles as a new batch the residuals are 1, -1, 0, var 2/3 against the returns' 8/9:
    explained 1 - 0.75 = 0.25. The table travels in the checkpoint."""
    mc = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)
    cfg = LearnerConfig(rnad=RNaDLossConfig(policy_loss="ppo", ppo_advantage="group", group_rate=0.1))
    b = _batch()
    b.group = torch.tensor([5, 5, 9])
    L = Learner(cfg, mc)
    first = L.step(b)
    assert first["group/explained_variance"] == pytest.approx(0.0, abs=1e-6) and first["group/pairs"] == 2
    assert L.pairs is not None and L.pairs.mean == pytest.approx({5: 0.0, 9: 1.0})
    assert L.step(b)["group/explained_variance"] == pytest.approx(0.0, abs=1e-6)  # another epoch:
    assert L.pairs.count == {5: 2, 9: 1}  # its battles are not counted twice
    b = dataclasses.replace(b)  # the same battles as a new batch
    assert L.step(b)["group/explained_variance"] == pytest.approx(0.25, abs=1e-6)
    L2 = Learner(cfg, mc)
    L2.load_state_dict(L.state_dict())
    assert L2.pairs is not None and L2.pairs.mean == pytest.approx(L.pairs.mean) and L2.pairs.count == L.pairs.count
    b.group = None
    with pytest.raises(ValueError, match="team pair"):
        L.step(b)
    plain = Learner(LearnerConfig(), mc)
    assert plain.pairs is None and plain.state_dict()["pairs"] is None and "group/pairs" not in plain.step(b)


def _battle(own: list[str], foes: list[str]):
    mon = lambda s: SimpleNamespace(species=s)  # noqa: E731
    return SimpleNamespace(team={f"p1: {s}": mon(s) for s in own}, teampreview_opponent_team=[mon(s) for s in foes])


def test_team_pair_key_names_the_two_teams_from_one_side():
    a, b = ["incineroar", "amoonguss", "fluttermane"], ["rillaboom", "urshifu", "tornadus"]
    key = team_pair_key(_battle(a, b))
    assert key > 0 and key < 2**63
    assert team_pair_key(_battle(a[::-1], b[::-1])) == key  # the order does not matter
    assert team_pair_key(_battle(b, a)) != key  # the other side of the pairing is another pair
    assert team_pair_key(_battle(a, b[:2] + ["calyrex"])) != key
    assert team_pair_key(_battle(a, [])) == 0  # no team preview: unknown
