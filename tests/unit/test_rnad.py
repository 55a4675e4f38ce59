"""R-NaD maths on small hand-computed tables, and gradient flow through the network."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
import torch

from league.battle.actions import JOINT_ACTIONS, PREVIEW_ACTIONS
from league.learn.learner import Learner, LearnerConfig, eta_at, lr_at
from league.learn.reward import RewardConfig
from league.learn.rnad import (
    POLICY_LOSSES,
    VTRACE_NETS,
    EntropySchedule,
    OpponentTerms,
    RNaDLossConfig,
    legal_columns,
    legal_log_policy,
    legal_policy,
    masked_kl,
    mixed_log_policy,
    neurd_loss,
    opponent_terms,
    ppo_ratio_figures,
    rnad_loss,
    v_trace,
)
from league.model.net import ModelConfig, PolicyValueNet
from league.transport.data import Batch
from tests.recorded import recorded_steps

T_ = torch.tensor


def test_v_trace_off_policy_table():
    # T=3, A=2, terminal reward 1; pi/mu ratios 1, 1.5, 2; rho=inf, c=1, eta=0.
    v = T_([[0.1], [0.2], [0.3]])
    pi = T_([[[0.5, 0.5]], [[0.25, 0.75]], [[0.8, 0.2]]])
    actions = T_([[0], [1], [0]])
    mu_logp = torch.log(T_([[0.5], [0.5], [0.4]]))
    reward = T_([[0.0], [0.0], [1.0]])
    valid = torch.ones(3, 1, dtype=torch.bool)
    vt, q = v_trace(v, valid, pi, torch.zeros(3, 1, 2), actions, mu_logp, reward, eta=0.0)
    # hand-computed: vt2 = .3 + 2(1-.3) = 1.7; vt1 = .2 + 1.5(.3-.2) + (1.7-.3) = 1.75; vt0 = .1 + (.2-.1) + (1.75-.2) = 1.75
    np.testing.assert_allclose(vt.squeeze(1).numpy(), [1.75, 1.75, 1.7], atol=1e-6)
    # q2 = .3 + [.7/.4, 0]; q1 = .2 + [0, 1.5/.5]; q0 = .1 + [1.65/.5, 0]
    np.testing.assert_allclose(q.squeeze(1).numpy(), [[3.4, 0.1], [0.2, 3.2], [2.05, 0.3]], atol=1e-6)


def test_v_trace_reward_transform_table():
    pi = T_([[[0.5, 0.5]]])
    lpr = T_([[[math.log(2.0), math.log(0.5 / 0.75)]]])  # log(pi/pi_reg) with pi_reg = (.25, .75)
    vt, q = v_trace(
        T_([[0.0]]),
        torch.ones(1, 1, dtype=torch.bool),
        pi,
        lpr,
        T_([[0]]),
        torch.log(T_([[0.5]])),
        T_([[1.0]]),
        eta=0.2,
    )
    kl = 0.5 * math.log(2.0) + 0.5 * math.log(0.5 / 0.75)
    assert vt.item() == pytest.approx(1.0 - 0.2 * kl, abs=1e-6)  # 0.971232
    np.testing.assert_allclose(q[0, 0].numpy(), [-0.2 * math.log(2) + 2.0, -0.2 * math.log(0.5 / 0.75)], atol=1e-6)


def test_v_trace_padding_resets():
    v = T_([[0.5, 0.5], [0.1, 9.0], [0.2, 9.0]])
    valid = T_([[1, 1], [1, 0], [1, 0]]).bool()
    pi = torch.full((3, 2, 2), 0.5)
    vt, q = v_trace(
        v,
        valid,
        pi,
        torch.zeros(3, 2, 2),
        torch.zeros(3, 2, dtype=torch.long),
        torch.log(torch.full((3, 2), 0.5)),
        T_([[0.0, -1.0], [0.0, 0.0], [1.0, 0.0]]),
        eta=0.0,
    )
    assert vt[0, 1].item() == pytest.approx(-1.0)  # one-step trajectory: v + ratio (r - v)
    assert (vt[1:, 1] == 0).all() and (q[1:, 1] == 0).all()


def test_legal_policy_zero_on_illegal_and_log_finite():
    logits = torch.randn(4, 7)
    mask = torch.rand(4, 7) > 0.5
    mask[:, 0] = True
    pi = legal_policy(logits, mask)
    assert (pi[~mask] == 0).all() and torch.allclose(pi.sum(-1), torch.ones(4))
    lp = legal_log_policy(logits, mask)
    assert torch.isfinite(lp).all() and (lp[~mask] == 0).all()


def test_neurd_threshold_stops_push_beyond_beta():
    logits = T_([[[5.0, -5.0, 0.0]]], requires_grad=True)  # centred: (5, -5, 0)
    mask = torch.ones(1, 1, 3, dtype=torch.bool)
    q = T_([[[1.0, -1.0, 0.0]]])  # wants to raise a0, lower a1: both already beyond beta=2
    loss = neurd_loss(logits, torch.full((1, 1, 3), 1 / 3), q, mask, torch.ones(1, 1, dtype=torch.bool), beta=2.0)
    loss.backward()
    assert torch.allclose(logits.grad, torch.zeros_like(logits.grad))
    logits2 = T_([[[0.5, -0.5, 0.0]]], requires_grad=True)
    neurd_loss(logits2, torch.full((1, 1, 3), 1 / 3), q, mask, torch.ones(1, 1, dtype=torch.bool), beta=2.0).backward()
    assert logits2.grad[0, 0, 0] < 0 and logits2.grad[0, 0, 1] > 0  # descent raises a0, lowers a1


def test_neurd_threshold_is_centred_on_the_legal_logits():
    # 3 legal logits (10, 11, 12) among 8 actions: legal mean 11, so with beta = 2 every
    # legal logit may move; the reference centre (mean over all 8, illegal = 0) is 33/8 =
    # 4.125, which puts 10, 11 and 12 all above +beta: none could rise
    mask = T_([[[1, 1, 1, 0, 0, 0, 0, 0]]]).bool()
    raw = T_([[[10.0, 11.0, 12.0, 0, 0, 0, 0, 0]]])
    pi = torch.softmax(raw.masked_fill(~mask, -1e9), -1)
    q = T_([[[1.0, 0.0, 0.0, 0, 0, 0, 0, 0]]])  # a0 is better than the policy's value
    valid = torch.ones(1, 1, dtype=torch.bool)
    grads = {}
    for centre in ("legal", "all"):
        logits = raw.clone().requires_grad_(True)
        neurd_loss(logits, pi, q, mask, valid, beta=2.0, centre=centre).backward()
        grads[centre] = logits.grad[0, 0]
    assert grads["legal"][0] < 0  # descent raises a0
    # the reference centre blocks every rise; only the falls of a1, a2 pass, and a0 rises
    # only by the little the centring spreads back
    adv = q[0, 0] - (pi[0, 0] * q[0, 0]).sum()
    assert adv[0] > 0 and grads["all"][0] > grads["legal"][0]
    assert torch.allclose(grads["legal"][3:], torch.zeros(5)) and torch.allclose(grads["all"][3:], torch.zeros(5))
    with pytest.raises(ValueError, match="centre"):
        neurd_loss(raw, pi, q, mask, valid, centre="middle")


def test_threshold_walls_count_steps_pinned_at_beta():
    from league.learn.rnad import threshold_walls

    logits = T_([[[5.0, 0.0, -5.0, 9.0]], [[0.5, 0.0, -0.5, 9.0]], [[9.0, 9.0, 9.0, 9.0]]])  # [T=3, B=1, A=4]
    mask = T_([[[1, 1, 1, 0]]] * 3).bool()  # the 9 in the last column is illegal: ignored
    valid = T_([[1], [1], [0]]).bool()  # the third step is padding
    top, bottom = threshold_walls(logits, mask, valid, beta=2.0)
    assert top.item() == pytest.approx(0.5) and bottom.item() == pytest.approx(0.5)


def test_entropy_schedule_table():
    s = EntropySchedule(sizes=(3, 5), repeats=(2, 1))  # iteration starts 0, 3, 6, 11, 16, ...
    assert list(s.schedule) == [0, 3, 6, 11]
    assert s(0) == (0.0, False)
    assert s(3) == (0.0, True) and s(4)[0] == pytest.approx(2 / 3) and s(5) == (1.0, False)
    assert s(6)[1] and s(11)[1] and s(16)[1] and s(21)[1] and not s(12)[1]
    assert s(13)[0] == pytest.approx(0.8)
    with pytest.raises(ValueError):
        EntropySchedule(sizes=(3,), repeats=(2,))


def _batch(T=4, B=3, seed=0) -> Batch:
    """Real recorded decisions (team preview, then turns) with sampled legal actions."""
    g = torch.Generator().manual_seed(seed)
    obs, mask, is_preview = recorded_steps(T, B)
    assert is_preview[0].all() and not is_preview[1:].any()
    actions = torch.stack(
        [torch.multinomial(m.float(), 1, generator=g).squeeze(-1) for m in mask.view(-1, JOINT_ACTIONS)]
    ).view(T, B)
    reward = torch.zeros(T, B)
    reward[-1] = torch.tensor([1.0, -1.0, 1.0])[:B]
    return Batch(obs, mask, is_preview, actions, torch.full((T, B), -3.0), reward, torch.ones(T, B, dtype=torch.bool))


def test_masked_actions_get_zero_probability_from_the_network():
    net = PolicyValueNet(ModelConfig(mon_dim=16, torso_dim=32, core_dim=32))
    b = _batch()
    logits, v, h = net(b.obs, b.mask, b.is_preview, net.initial_state(3))
    pi = torch.softmax(logits, -1)
    assert (pi[~b.mask] == 0).all()
    assert torch.allclose(pi.sum(-1), torch.ones(4, 3))
    assert (pi[0, :, PREVIEW_ACTIONS:] == 0).all()
    assert v.shape == (4, 3) and h.shape == (1, 3, 32)


@pytest.mark.parametrize("recurrent", [True, False])
def test_acting_step_by_step_equals_learning_on_the_whole_trajectory(recurrent):
    net = PolicyValueNet(ModelConfig(mon_dim=16, torso_dim=32, core_dim=32, recurrent=recurrent))
    b = _batch()
    full, vfull, _ = net(b.obs, b.mask, b.is_preview, net.initial_state(3))
    h = net.initial_state(3)
    for t in range(4):
        step, vstep, h = net(b.obs[t : t + 1], b.mask[t : t + 1], b.is_preview[t : t + 1], h)
        torch.testing.assert_close(step[0], full[t], rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(vstep[0], vfull[t], rtol=1e-5, atol=1e-5)


def _grads(learner_cfg_loss: RNaDLossConfig, eta_logits_shift: float = 0.0):
    torch.manual_seed(0)
    net = PolicyValueNet(ModelConfig(mon_dim=16, torso_dim=32, core_dim=32))
    b = _batch()
    logits, v, _ = net(b.obs, b.mask, b.is_preview, net.initial_state(3))
    reg = logits.detach() + eta_logits_shift * torch.randn_like(logits)
    # on-policy behaviour log-probs (ratio 1), as fresh PPO data would have
    mu_logp = legal_log_policy(logits.detach(), b.mask).gather(-1, b.actions.unsqueeze(-1)).squeeze(-1)
    loss, terms = rnad_loss(
        logits, v, v.detach(), reg, reg, 0.5, b.mask, b.valid, b.actions, mu_logp, b.reward, learner_cfg_loss
    )
    return net, terms


@pytest.mark.parametrize("policy_loss", POLICY_LOSSES)
def test_policy_and_value_terms_have_gradient(policy_loss):
    cfg = RNaDLossConfig(policy_loss=policy_loss)
    net, terms = _grads(cfg)
    net.zero_grad()
    terms["loss/policy"].backward(retain_graph=True)
    assert net.order_score.weight.grad.abs().sum() > 0 and net.preview_out.weight.grad.abs().sum() > 0
    assert net.act_feat.weight.grad.abs().sum() > 0  # through the per-action features
    assert net.species.weight.grad.abs().sum() > 0  # reaches the encoder
    net.zero_grad()
    terms["loss/value"].backward()
    assert net.value_head[0].weight.grad.abs().sum() > 0


def test_regularisation_changes_the_policy_gradient():
    cfg = RNaDLossConfig(eta=0.5)
    grads = []
    for shift in (0.0, 3.0):  # pi_reg == pi  vs  pi_reg far from pi
        net, terms = _grads(cfg, shift)
        net.zero_grad()
        terms["loss/policy"].backward()
        grads.append(net.order_score.weight.grad.clone())
    assert not torch.allclose(grads[0], grads[1])
    _, terms = _grads(cfg, 3.0)
    assert terms["kl_to_reg"].item() > 0


def test_learner_swaps_pi_reg_at_iteration_boundaries():
    cfg = LearnerConfig(schedule_sizes=(2,), schedule_repeats=(1,), target_ema=0.5, lr=1e-2)
    L = Learner(cfg, ModelConfig(mon_dim=16, torso_dim=32, core_dim=32))
    b = _batch()
    snap = lambda m: [p.detach().clone() for p in m.parameters()]  # noqa: E731
    L.step(b)  # step 0: no swap
    L.step(b)  # step 1
    target_before, reg_before = snap(L.target), snap(L.reg)
    out = L.step(b)  # step 2 starts a new iteration: reg_prev <- reg, reg <- target (after this step's EMA)
    assert out["reg_iterations"] == 1 and L.steps == 3
    for p, q in zip(L.reg_prev.parameters(), reg_before):
        assert torch.equal(p, q)
    for p, q in zip(L.reg.parameters(), L.target.parameters()):
        assert torch.equal(p, q)
    assert any(not torch.equal(p, q) for p, q in zip(L.reg.parameters(), target_before))  # EMA moved first
    L.step(b)
    assert L.reg_iterations == 1


def test_target_follows_the_online_network_by_its_ema_and_adam_is_torch_s():
    """After a step: target = (1 - ema) target_before + ema online_after, every parameter
    (one multi-tensor lerp); the online step is torch's single-tensor Adam's to rounding."""
    cfg = LearnerConfig(schedule_sizes=(100,), schedule_repeats=(1,), target_ema=0.25, lr=1e-2)
    small = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)
    L = Learner(cfg, small, seed=0)
    with torch.no_grad():  # the target away from the online network, so the EMA shows
        for p in L.target.parameters():
            p.add_(0.1)
    b = _batch()
    ref = copy.deepcopy(L.net)
    ref_opt = torch.optim.Adam(ref.parameters(), lr=cfg.lr, betas=(cfg.adam_b1, cfg.adam_b2), foreach=False)
    before = [p.detach().clone() for p in L.target.parameters()]
    online_before = [p.detach().clone() for p in L.net.parameters()]
    L.step(b)
    moved = 0
    for t0, t1, p in zip(before, L.target.parameters(), L.net.parameters()):
        assert torch.allclose(t1, 0.75 * t0 + 0.25 * p, atol=1e-6)
        moved += int(not torch.equal(t1, t0))
    assert moved == len(before)
    # the same gradients through the single-tensor Adam give the same weights
    for q, p0 in zip(ref.parameters(), online_before):
        assert torch.equal(q.detach(), p0)
    changed = [not torch.equal(p0, p) for p0, p in zip(online_before, L.net.parameters())]
    assert any(changed)
    ref_opt.zero_grad()
    for q, p in zip(ref.parameters(), L.opt.param_groups[0]["params"]):
        q.grad = None if p.grad is None else p.grad.detach().clone()
    ref_opt.step()
    for q, p in zip(ref.parameters(), L.net.parameters()):
        assert torch.allclose(q, p, atol=1e-6)


def test_masked_kl_hand_table():
    from league.learn.rnad import masked_kl

    # one decision, legal actions {0, 1}: p = (3/4, 1/4), q = (1/2, 1/2); action 2 is illegal
    lp = torch.tensor([[[math.log(3.0), 0.0, 50.0]]])
    lq = torch.tensor([[[0.0, 0.0, -50.0]]])
    mask = torch.tensor([[[True, True, False]]])
    valid = torch.ones(1, 1, dtype=torch.bool)
    expected = 0.75 * math.log(0.75 / 0.5) + 0.25 * math.log(0.25 / 0.5)
    assert float(masked_kl(lp, lq, mask, valid)) == pytest.approx(expected, abs=1e-6)
    assert float(masked_kl(lp, lp, mask, valid)) == pytest.approx(0.0, abs=1e-7)
    # an invalid (padding) step does not count
    lp2, lq2 = torch.cat([lp, lq]), torch.cat([lq, lq])
    valid2 = torch.tensor([[True], [False]])
    assert float(masked_kl(lp2, lq2, torch.cat([mask, mask]), valid2)) == pytest.approx(expected, abs=1e-6)


def test_portfolio_learner_regularises_toward_the_closest_reference():
    import copy

    small = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)
    L = Learner(LearnerConfig(), small, seed=0)
    far = PolicyValueNet(small)
    with torch.no_grad():
        for p in far.parameters():
            p.add_(torch.randn_like(p))
    near = copy.deepcopy(L.net)
    L.set_portfolio([("far", far), ("near", near)])
    m = L.step(_batch())
    assert m["portfolio/chosen"] == 1 and m["portfolio/kl/1"] < 1e-6 < m["portfolio/kl/0"]
    # the reward transform used pi_ref = pi: nothing to pull toward, unlike plain R-NaD's pi_reg
    assert abs(m["kl_to_reg"]) < 1e-5
    L.set_portfolio([("far", far)])
    m = L.step(_batch(seed=1))
    assert m["portfolio/chosen"] == 0 and m["kl_to_reg"] > 1e-3


def test_nash_weighted_reference_is_the_geometric_mixture_hand_table():
    # legal actions {0, 1, 2}, action 3 illegal; pi_1 = (1/2, 1/4, 1/4), pi_2 = (1/4, 1/4, 1/2)
    mask = torch.tensor([[[True, True, True, False]]])
    l1 = torch.log(T_([[[0.5, 0.25, 0.25, 1.0]]]))
    l2 = torch.log(T_([[[0.25, 0.25, 0.5, 9.0]]])) + 3.0  # a shift of the logits changes no policy
    valid = torch.ones(1, 1, dtype=torch.bool)
    # weights (1/2, 1/2): pi_reg ∝ sqrt(pi_1 pi_2) = (.353553, .25, .353553), Z = .957107
    q = legal_policy(mixed_log_policy([l1, l2], [0.5, 0.5], mask), mask)
    np.testing.assert_allclose(q[0, 0].numpy(), [0.369398, 0.261203, 0.369398, 0.0], atol=1e-6)
    # weights (3/4, 1/4): pi_1^.75 pi_2^.25 = (.420448, .25, .297302), Z = .967750
    q = legal_policy(mixed_log_policy([l1, l2], [0.75, 0.25], mask), mask)
    np.testing.assert_allclose(q[0, 0].numpy(), [0.434460, 0.258332, 0.307209, 0.0], atol=1e-6)
    # one weight 1: that reference itself
    q = legal_policy(mixed_log_policy([l1, l2], [1.0, 0.0], mask), mask)
    np.testing.assert_allclose(q[0, 0].numpy(), [0.5, 0.25, 0.25, 0.0], atol=1e-6)
    # sum_i w_i KL(pi || pi_i) = KL(pi || pi_reg) - log Z: one objective, up to a constant
    pi_logits = torch.log(T_([[[0.2, 0.3, 0.5, 0.7]]]))
    lhs = 0.75 * masked_kl(pi_logits, l1, mask, valid) + 0.25 * masked_kl(pi_logits, l2, mask, valid)
    rhs = masked_kl(pi_logits, mixed_log_policy([l1, l2], [0.75, 0.25], mask), mask, valid) - math.log(0.967750)
    assert float(lhs) == pytest.approx(float(rhs), abs=1e-5)
    with pytest.raises(ValueError, match="one weight per reference"):
        mixed_log_policy([l1, l2], [1.0], mask)


def test_nash_weighted_portfolio_learner_regularises_toward_the_mixture():
    import copy

    small = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)
    far = PolicyValueNet(small)
    with torch.no_grad():
        for p in far.parameters():
            p.add_(torch.randn_like(p))

    def stepped(refs, weights):
        L = Learner(LearnerConfig(), small, seed=0)
        near = copy.deepcopy(L.net)
        L.set_portfolio([(mid, {"far": far, "near": near}[mid]) for mid in refs], weights)
        return L.step(_batch())

    # all the weight on the online policy's copy: nothing to pull toward
    m = stepped(["far", "near"], [0.0, 1.0])
    assert abs(m["kl_to_reg"]) < 1e-5 and m["portfolio/kl/0"] > 1e-3 > m["portfolio/kl/1"]
    assert m["portfolio/weight/0"] == 0.0 and m["portfolio/weight/1"] == 1.0 and "portfolio/chosen" not in m
    # a weight of 1 on one reference is that reference alone (min-KL with one reference)
    assert stepped(["far", "near"], [1.0, 0.0])["loss/total"] == pytest.approx(stepped(["far"], None)["loss/total"])
    # half and half: between the two (KL to the mixture below the weighted KLs, by log Z <= 0)
    half = stepped(["far", "near"], [0.5, 0.5])
    assert 1e-5 < half["kl_to_reg"] <= 0.5 * half["portfolio/kl/0"] + 0.5 * half["portfolio/kl/1"] + 1e-6
    L = Learner(LearnerConfig(), small, seed=0)
    for bad in ([0.5], [0.7, 0.7], [1.5, -0.5]):
        with pytest.raises(ValueError, match="portfolio weights"):
            L.set_portfolio([("far", far), ("near", far)], bad)


def test_v_trace_lambda_table():
    # on-policy (ratio 1), eta 0, lambda 0.5: vt_t = v_t + (r_t + v_{t+1} - v_t) + lambda (vt_{t+1} - v_{t+1})
    v = T_([[0.2], [0.5], [-0.1]])
    pi = torch.full((3, 1, 2), 0.5)
    args = (
        v,
        torch.ones(3, 1, dtype=torch.bool),
        pi,
        torch.zeros(3, 1, 2),
        torch.zeros(3, 1, dtype=torch.long),
        torch.log(torch.full((3, 1), 0.5)),
        T_([[0.0], [0.0], [1.0]]),
    )
    vt, _ = v_trace(*args, eta=0.0, lambda_=0.5)
    # vt2 = -.1 + (1 + .1) = 1.0; vt1 = .5 + (-.1 - .5) + .5 (1.0 + .1) = .45; vt0 = .2 + .3 + .5 (.45 - .5) = .475
    np.testing.assert_allclose(vt.squeeze(1).numpy(), [0.475, 0.45, 1.0], atol=1e-6)
    vt0, _ = v_trace(*args, eta=0.0, lambda_=0.0)  # one-step TD targets
    np.testing.assert_allclose(vt0.squeeze(1).numpy(), [0.5, -0.1, 1.0], atol=1e-6)
    vt1, _ = v_trace(*args, eta=0.0)  # lambda 1: the Monte-Carlo return
    np.testing.assert_allclose(vt1.squeeze(1).numpy(), [1.0, 1.0, 1.0], atol=1e-6)


def test_learner_applies_and_logs_reward_shaping():

    b = _batch()
    mc = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)
    td = RNaDLossConfig(lambda_vtrace=0.0)  # one-step targets see each step's reward
    plain = Learner(LearnerConfig(rnad=td), mc, seed=3).step(b)
    shaped = Learner(LearnerConfig(reward=RewardConfig(shaping=1.0), rnad=td), mc, seed=3).step(b)
    assert "reward/shaping" not in plain and shaped["reward/shaping_abs"] > 0  # recorded play: HP changes
    assert shaped["reward/terminal"] == plain["reward/terminal"]
    assert shaped["v_target_mean"] != pytest.approx(plain["v_target_mean"], abs=1e-6)


def test_v_trace_clipped_importance_weights_table():
    # the off-policy table's trajectory (pi/mu = 1, 1.5, 2), now with rho-bar clipping
    v = T_([[0.1], [0.2], [0.3]])
    pi = T_([[[0.5, 0.5]], [[0.25, 0.75]], [[0.8, 0.2]]])
    args = (
        v,
        torch.ones(3, 1, dtype=torch.bool),
        pi,
        torch.zeros(3, 1, 2),
        T_([[0], [1], [0]]),
        torch.log(T_([[0.5], [0.5], [0.4]])),
        T_([[0.0], [0.0], [1.0]]),
    )
    vt, q = v_trace(*args, eta=0.0, rho=1.0, c=1.0)
    # rho = c = 1 everywhere: vt2 = .3 + .7 = 1; vt1 = .2 + .1 + (1 - .3) = 1; vt0 = .1 + .1 + (1 - .2) = 1
    np.testing.assert_allclose(vt.squeeze(1).numpy(), [1.0, 1.0, 1.0], atol=1e-6)
    # q(a_t) = v_t + (r_t + vt_{t+1} - v_t) / mu(a_t): .1 + .9/.5; .2 + .8/.5; .3 + .7/.4
    np.testing.assert_allclose(q.squeeze(1).numpy(), [[1.9, 0.1], [0.2, 1.8], [2.05, 0.3]], atol=1e-6)
    vt, _ = v_trace(*args, eta=0.0, rho=1.2, c=1.0)
    # rho = 1, 1.2, 1.2: vt2 = .3 + 1.2 * .7 = 1.14; vt1 = .2 + 1.2 * .1 + (1.14 - .3) = 1.16; vt0 = .2 + (1.16 - .2)
    np.testing.assert_allclose(vt.squeeze(1).numpy(), [1.16, 1.16, 1.14], atol=1e-6)


def test_opponent_terms_hand_table():
    # battle 5: seat A (column 0) decides at keys 0 (preview), 8 (turn 1), 16 (turn 2);
    # seat B (column 1) at 0, 8, 9 (a forced switch in turn 1), 16. Column 2: no partner
    # (key 0); column 3: its partner (key 7) is not in the batch. eta = 0.5.
    nan = float("nan")
    kl = T_([[0.2, 0.1, 9.0, 9.0], [0.4, 0.2, 9.0, 9.0], [0.6, 0.3, 9.0, 9.0], [nan, 0.4, 9.0, 9.0]])
    ratio = T_([[2.0, 1.0, 3.0, 3.0], [1.0, 0.5, 3.0, 3.0], [0.5, 2.0, 3.0, 3.0], [nan, 0.8, 3.0, 3.0]])
    valid = T_([[1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1], [0, 1, 1, 1]]).bool()
    order = T_([[0, 0, 0, 0], [8, 8, 8, 8], [16, 9, 16, 16], [0, 16, 24, 24]])
    opp = opponent_terms(kl, ratio, valid, order, T_([5, 5, 0, 7]), eta=0.5)
    # e_B = .5 kl_B = .05 .1 .15 .2. A's step 0 gets B's step 0; A's step 1 gets B's steps
    # 8 and 9: u = .1 + .15, w = .1 + cs(.5) .15, ratio .5 * 2; A's step 2 gets B's 16.
    # e_A = .1 .2 .3: B's step 0 gets A's 0 (ratio 2), step 8 A's 8, step 9 nothing, 16 A's 16.
    u = [[0.05, 0.1, 0, 0], [0.25, 0.2, 0, 0], [0.2, 0.0, 0, 0], [0, 0.3, 0, 0]]
    w = [[0.05, 0.1, 0, 0], [0.175, 0.2, 0, 0], [0.2, 0.0, 0, 0], [0, 0.3, 0, 0]]
    r = [[1.0, 2.0, 1, 1], [1.0, 1.0, 1, 1], [0.8, 1.0, 1, 1], [1, 0.5, 1, 1]]
    np.testing.assert_allclose(opp.unweighted.numpy(), u, atol=1e-6)
    np.testing.assert_allclose(opp.weighted.numpy(), w, atol=1e-6)
    np.testing.assert_allclose(opp.ratio.numpy(), r, atol=1e-6)
    assert opp.paired.tolist() == [True, True, False, False]


def test_v_trace_with_opponent_terms_table():
    # on-policy (ratio 1), pi = pi_reg (own eta terms 0), lambda = c = 1, reward 1 at the end;
    # the other seat adds u (their +eta KL, unweighted), w (weighted) and their ratio product.
    v = T_([[0.2], [0.4]])
    args = (
        v,
        torch.ones(2, 1, dtype=torch.bool),
        torch.full((2, 1, 2), 0.5),
        torch.zeros(2, 1, 2),
        T_([[1], [0]]),
        torch.log(torch.full((2, 1), 0.5)),
        T_([[0.0], [1.0]]),
    )
    opp = OpponentTerms(T_([[0.3], [0.1]]), T_([[0.2], [0.1]]), T_([[0.5], [2.0]]), T_([True]))
    vt, q = v_trace(*args, eta=0.2, opponent=opp)
    # t1: r~ = 1 + .1, cs = 2: vt1 = .4 + 2 (1.1 - .4) = 1.8; q1(a=0) = .4 + (1 + .1 - .4) / .5 = 1.8
    # t0: r~ = .3, cs = .5: vt0 = .2 + .5 (.3 + .4 - .2) + min(1, .5) (1.8 - .4) = 1.15;
    #     q0(a=1) = .2 + (0 + .2 + .5 * 1.8 - .2) / .5 = 2.0
    np.testing.assert_allclose(vt.squeeze(1).numpy(), [1.15, 1.8], atol=1e-6)
    np.testing.assert_allclose(q.squeeze(1).numpy(), [[0.2, 2.0], [1.8, 0.4]], atol=1e-6)
    # neutral terms (no partner) change nothing
    none = OpponentTerms(torch.zeros(2, 1), torch.zeros(2, 1), torch.ones(2, 1), T_([False]))
    for a, b in zip(v_trace(*args, eta=0.2, opponent=none), v_trace(*args, eta=0.2)):
        torch.testing.assert_close(a, b)


def test_learner_pairs_self_play_seats_for_the_opponent_term():
    b = _batch(B=3)
    b.battle = T_([11, 0, 11])
    b.order = (torch.arange(b.obs.shape[0]) * 8)[:, None].expand(-1, 3).contiguous()
    mc = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)
    off = Learner(LearnerConfig(), mc, seed=3).step(b)
    on = Learner(LearnerConfig(rnad=RNaDLossConfig(opponent_kl=True)), mc, seed=3).step(b)
    assert "opponent/paired" not in off and on["opponent/paired"] == pytest.approx(2 / 3)
    assert on["opponent/ratio"] > 0 and on["opponent/kl_bonus"] >= -1e-6  # a KL: 0 up to rounding
    # the partner's importance ratios enter the targets
    assert on["v_target_mean"] != pytest.approx(off["v_target_mean"], abs=1e-6)


@pytest.mark.parametrize("step", [1, 3])  # sizes (4,): alpha 0.5 at step 1, 1.0 at step 3
def test_learner_loss_matches_the_four_forwards(step):
    """Learner.step's loss is rnad_loss over the online, target, pi_reg and pi_reg_prev
    forwards, on a padded batch, also where alpha = 1 lets it skip pi_reg_prev's."""
    mc = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)
    L = Learner(LearnerConfig(schedule_sizes=(4,), schedule_repeats=(1,)), mc, seed=5)
    with torch.no_grad():  # four different networks
        for i, m in enumerate((L.target, L.reg, L.reg_prev)):
            for p in m.parameters():
                p.add_(0.3 * (i + 1) * torch.randn_like(p))
    L.steps = step
    b = _batch()
    b.valid = torch.tensor([[1, 1, 1], [1, 1, 1], [1, 0, 1], [1, 0, 0]], dtype=torch.bool)
    alpha, _ = L.schedule(step)
    h0 = L.net.initial_state(3)
    with torch.no_grad():
        lg, v, _ = L.net(b.obs, b.mask, b.is_preview, h0)
        vt = L.target(b.obs, b.mask, b.is_preview, h0)[1]
        lr, lp = (m(b.obs, b.mask, b.is_preview, h0)[0] for m in (L.reg, L.reg_prev))
        want, _ = rnad_loss(lg, v, vt, lr, lp, alpha, b.mask, b.valid, b.actions, b.mu_logp, b.reward, L.cfg.rnad)
    got = L.step(b)
    assert got["alpha"] == alpha and (alpha == 1.0) == (step == 3)
    assert got["loss/total"] == pytest.approx(float(want), rel=1e-4, abs=1e-5)
    assert got["samples"] == 9


@pytest.mark.parametrize("vtrace_net", VTRACE_NETS)
def test_vtrace_reads_the_chosen_network_s_value(vtrace_net):
    """``vtrace_net``: v-trace's targets and TD errors (PPO-td's advantages) read the target
    network's value, or the online one's, whose forward is then the only one run."""
    mc = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)
    rnad = RNaDLossConfig(eta=0.0, policy_loss="ppo", vtrace_net=vtrace_net)
    L = Learner(LearnerConfig(rnad=rnad), mc, seed=5)
    with torch.no_grad():  # a target network far from the online one
        for p in L.target.parameters():
            p.add_(0.5 * torch.randn_like(p))
    b = _batch()
    h0 = L.net.initial_state(3)
    with torch.no_grad():
        lg, v, _ = L.net(b.obs, b.mask, b.is_preview, h0)
        # acting was on-policy (ratio 1): v-trace's targets are the returns
        b.mu_logp = legal_log_policy(lg, b.mask).gather(-1, b.actions.unsqueeze(-1)).squeeze(-1)
        vt = L.target(b.obs, b.mask, b.is_preview, h0)[1]
        reads = {"online": v, "target": vt}
        terms = {
            k: rnad_loss(lg, v, x, lg, lg, 1.0, b.mask, b.valid, b.actions, b.mu_logp, b.reward, rnad)[1]
            for k, x in reads.items()
        }
    other = "target" if vtrace_net == "online" else "online"
    calls = []
    L.target.register_forward_hook(lambda *_: calls.append(1))
    got = L.step(b)
    assert len(calls) == (vtrace_net == "target")
    for k in ("loss/value", "loss/policy"):
        assert got[k] == pytest.approx(float(terms[vtrace_net][k]), rel=1e-4, abs=1e-6)
    assert got["loss/policy"] != pytest.approx(float(terms[other]["loss/policy"]), rel=1e-2, abs=1e-4)
    assert got["ppo/clip_frac"] == 0.0 and got["ppo/ratio_dev"] < 1e-5  # acted on-policy: every ratio 1


@pytest.mark.parametrize("policy_loss, advantage", [("neurd", "td"), ("ppo", "q"), ("ppo", "td")])
def test_without_regularisation_pi_reg_changes_nothing(policy_loss, advantage):
    """eta = 0: the loss and its gradient are the same whatever pi_reg is, so the learner
    may take pi_reg = pi and skip its forwards (a best response, an exploiter)."""
    cfg = RNaDLossConfig(eta=0.0, policy_loss=policy_loss, ppo_advantage=advantage)
    out = []
    for shift in (0.0, 3.0):  # pi_reg == pi  vs  pi_reg far from pi
        net, terms = _grads(cfg, shift)
        net.zero_grad()
        (terms["loss/policy"] + terms["loss/value"]).backward()
        out.append(
            (float(terms["loss/policy"].detach()), [p.grad.clone() for p in net.parameters() if p.grad is not None])
        )
    assert out[0][0] == pytest.approx(out[1][0], rel=1e-6, abs=1e-7)
    assert len(out[0][1]) == len(out[1][1]) > 0
    assert all(torch.allclose(a, b, rtol=1e-5, atol=1e-7) for a, b in zip(out[0][1], out[1][1]))


@pytest.mark.parametrize("eta", [0.0, 0.2])
def test_the_learner_skips_pi_reg_s_forwards_only_without_regularisation(eta):
    mc = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)
    L = Learner(LearnerConfig(schedule_sizes=(4,), schedule_repeats=(1,)), mc, seed=5)
    L.cfg.rnad.eta = eta
    calls = []
    for m in (L.reg, L.reg_prev):
        m.register_forward_hook(lambda *_: calls.append(1))
    got = L.step(_batch())  # step 0: alpha 0, both pi_reg and pi_reg_prev read when eta > 0
    assert len(calls) == (0 if eta == 0.0 else 2)
    assert ("kl_to_reg" in got) == (eta > 0.0)
    assert math.isfinite(got["loss/total"])


@pytest.mark.parametrize(
    "policy_loss, advantage, centre",
    [("neurd", "td", "legal"), ("neurd", "td", "all"), ("ppo", "q", "legal"), ("ppo", "td", "legal")],
)
def test_rnad_loss_on_valid_steps_equals_the_padded_grid_formula(policy_loss, advantage, centre):
    """rnad_loss works on the valid steps' legal actions only; written out over the whole
    padded grid and every action with v_trace's [T, B, A] form, the loss, its terms and
    its gradients are the same, a step whose taken action was not legal included."""
    from league.learn.rnad import _renormalize, entropy, ppo_clip_loss, ppo_clip_surrogate, value_loss

    g = torch.Generator().manual_seed(7)
    T, B, A = 4, 3, 12
    valid = torch.tensor([[1, 1, 1], [1, 1, 1], [1, 0, 1], [1, 0, 0]], dtype=torch.bool)
    mask = torch.rand(T, B, A, generator=g) < 0.5
    mask[..., 0] = True
    logits = torch.randn(T, B, A, generator=g).requires_grad_()
    v = torch.randn(T, B, generator=g).requires_grad_()
    v_net, lr, lp = torch.randn(T, B, generator=g), torch.randn(T, B, A, generator=g), torch.randn(T, B, A, generator=g)
    actions = torch.stack([torch.multinomial(m.float(), 1, generator=g).squeeze(-1) for m in mask.view(-1, A)]).view(
        T, B
    )
    mask[1, 0, 5], actions[1, 0] = False, 5  # a taken action that was not legal: probability 0
    assert legal_columns(mask[valid])[0].shape[-1] < A  # the loss sees fewer columns than the grid
    mu_logp = -torch.rand(T, B, generator=g) - 0.5
    reward = torch.zeros(T, B)
    reward[3, 0], reward[1, 1], reward[2, 2] = 1.0, -1.0, 1.0
    cfg = RNaDLossConfig(eta=0.3, policy_loss=policy_loss, neurd_beta=1.0, ppo_advantage=advantage, neurd_centre=centre)
    alpha = 0.25

    total, terms = rnad_loss(logits, v, v_net, lr, lp, alpha, mask, valid, actions, mu_logp, reward, cfg)
    grads = torch.autograd.grad(total, (logits, v))

    log_pi = legal_log_policy(logits, mask)
    pi = log_pi.exp() * mask
    lpr = ((log_pi - (alpha * legal_log_policy(lr, mask) + (1 - alpha) * legal_log_policy(lp, mask))) * mask).detach()
    vt, q = v_trace(v_net, valid, pi.detach(), lpr, actions, mu_logp, reward, eta=cfg.eta)
    if policy_loss == "neurd":
        loss_pi = neurd_loss(logits, pi.detach(), q, mask, valid, beta=cfg.neurd_beta, centre=centre)
    elif advantage == "q":
        loss_pi = ppo_clip_loss(log_pi, pi.detach(), q, actions, mu_logp, valid)
    else:  # the TD error on the grid: r_t - eta log(pi/pi_reg)(a_t) + v^_{t+1} - v_t (v^ is 0 past the end)
        next_vt = torch.cat([vt[1:], torch.zeros(1, B)])
        adv = reward + next_vt - v_net - cfg.eta * lpr.gather(-1, actions.unsqueeze(-1)).squeeze(-1)
        loss_pi = ppo_clip_surrogate(log_pi, adv * valid, actions, mu_logp, valid)
    want = loss_pi + value_loss(v, vt, valid)
    want_grads = torch.autograd.grad(want, (logits, v))
    assert float(total.detach()) == pytest.approx(float(want.detach()), rel=1e-5, abs=1e-6)
    assert float(terms["entropy"].detach()) == pytest.approx(float(entropy(pi, log_pi, valid).detach()), rel=1e-5)
    assert float(terms["kl_to_reg"]) == pytest.approx(float(_renormalize((pi * lpr).sum(-1), valid).detach()), rel=1e-5)
    assert float(terms["v_target_mean"]) == pytest.approx(float(_renormalize(vt, valid)), rel=1e-5)
    for a, b in zip(grads, want_grads):
        torch.testing.assert_close(a, b)
    assert grads[0][~valid].abs().sum() == 0 and grads[0].abs().sum() > 0


@pytest.mark.parametrize(
    "decay, final, step, expected",
    [
        (0, 0.1, 0, 1e-3),
        (0, 0.1, 10_000, 1e-3),  # no decay: constant
        (100, 0.1, 0, 1e-3),
        (100, 0.1, 50, 5.5e-4),
        (100, 0.1, 100, 1e-4),
        (100, 0.1, 500, 1e-4),  # 1 - 0.5 * 0.9 = 0.55
        (4, 0.0, 1, 7.5e-4),
        (4, 0.0, 3, 2.5e-4),
        (4, 0.0, 4, 0.0),
    ],
)
def test_lr_schedule_hand_table(decay, final, step, expected):
    assert lr_at(LearnerConfig(lr=1e-3, lr_decay_updates=decay, lr_final=final), step) == pytest.approx(expected)


def test_learner_steps_with_the_scheduled_learning_rate():
    cfg = LearnerConfig(lr=1e-2, lr_decay_updates=2, lr_final=0.5)
    L = Learner(cfg, ModelConfig(mon_dim=16, torso_dim=32, core_dim=32))
    b = _batch()
    seen = [L.step(b)["lr"] for _ in range(4)]
    assert seen == pytest.approx([1e-2, 7.5e-3, 5e-3, 5e-3])
    assert L.opt.param_groups[0]["lr"] == pytest.approx(5e-3)
    L2 = Learner(cfg, ModelConfig(mon_dim=16, torso_dim=32, core_dim=32))  # resumed at step 3: the same lr
    L2.load_state_dict(L.state_dict())
    assert L2.step(b)["lr"] == pytest.approx(5e-3)


@pytest.mark.parametrize(
    "decay, final, step, expected",
    [
        (0, 0.2, 0, 0.1),
        (0, 0.2, 10_000, 0.1),  # no decay: constant
        (100, 0.2, 0, 0.1),
        (100, 0.2, 50, 0.06),  # 0.1 * (1 - 0.5 * 0.8)
        (100, 0.2, 100, 0.02),
        (100, 0.2, 900, 0.02),
        (4, 0.0, 1, 0.075),
        (4, 0.0, 4, 0.0),
    ],
)
def test_eta_schedule_hand_table(decay, final, step, expected):
    cfg = LearnerConfig(eta_decay_updates=decay, eta_final=final, rnad=RNaDLossConfig(eta=0.1))
    assert eta_at(cfg, step) == pytest.approx(expected)


def test_learner_regularises_with_the_scheduled_eta():
    """Each update's loss reads eta from the schedule (reported as "eta"), a resumed
    learner continues the schedule, and a constant eta reports none."""
    cfg = LearnerConfig(lr=1e-3, eta_decay_updates=2, eta_final=0.0, rnad=RNaDLossConfig(eta=0.5, policy_loss="ppo"))
    mc = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)
    L = Learner(cfg, mc)
    b = _batch()
    seen = [L.step(b)["eta"] for _ in range(3)]
    assert seen == pytest.approx([0.5, 0.25, 0.0])
    state = L.state_dict()
    L2 = Learner(cfg, mc)
    L2.load_state_dict(state)
    got = L2.step(b)
    assert got["eta"] == pytest.approx(0.0)
    # eta scheduled down to 0 is eta 0: the same weights, the same policy loss
    L0 = Learner(LearnerConfig(lr=1e-3, rnad=RNaDLossConfig(eta=0.0, policy_loss="ppo")), mc)
    L0.load_state_dict(state)
    assert L0.step(b)["loss/policy"] == pytest.approx(got["loss/policy"], rel=1e-5)
    L1 = Learner(LearnerConfig(lr=1e-3, rnad=RNaDLossConfig(eta=0.5, policy_loss="ppo")), mc)
    L1.load_state_dict(state)
    assert L1.step(b)["loss/policy"] != pytest.approx(got["loss/policy"], rel=1e-5)  # eta 0.5 is not
    assert "eta" not in Learner(LearnerConfig(rnad=RNaDLossConfig(eta=0.5)), mc).step(b)


@pytest.mark.parametrize("advantage, want", [("td", -0.7), ("q", -1.4)])
def test_ppo_advantage_hand_table(advantage, want):
    """One trajectory of two steps, 3 legal actions, uniform pi = mu = 1/3 (ratio 1), eta 0.
    v = [0.2, 0.4], rewards [0, 1]: v-trace targets [1, 1], TD errors
    delta = [0 + 1 - 0.2, 1 + 0 - 0.4] = [0.8, 0.6]. td: the loss is -mean(delta) = -0.7;
    q: (1 - pi(a_t)) delta / mu(a_t) = 2 delta, -1.4."""
    T, B, A = 2, 1, 3
    logits = torch.zeros(T, B, A, requires_grad=True)
    mask = torch.ones(T, B, A, dtype=torch.bool)
    valid = torch.ones(T, B, dtype=torch.bool)
    v_net = torch.tensor([[0.2], [0.4]])
    reward = torch.tensor([[0.0], [1.0]])
    mu_logp = torch.full((T, B), math.log(1 / 3))
    cfg = RNaDLossConfig(eta=0.0, policy_loss="ppo", ppo_advantage=advantage)
    _, terms = rnad_loss(
        logits,
        v_net.clone().requires_grad_(),
        v_net,
        logits.detach(),
        logits.detach(),
        1.0,
        mask,
        valid,
        torch.tensor([[0], [2]]),
        mu_logp,
        reward,
        cfg,
    )
    assert float(terms["loss/policy"]) == pytest.approx(want, rel=1e-5)
    assert float(terms["v_target_mean"]) == pytest.approx(1.0)
    assert float(terms["q/inv_mu_taken"]) == pytest.approx(3.0) and float(terms["q/coef_abs"]) == pytest.approx(2.1)
    if advantage == "td":
        assert float(terms["ppo/adv_abs"]) == pytest.approx(0.7)


def test_logit_spread_hand_table():
    """The legal logits' variance per step; illegal logits (the network's -1e9) do not count."""
    from league.learn.rnad import logit_spread

    neg = -1e9
    logits = torch.tensor(
        [
            [1.0, 3.0, neg, neg],  # legal {1, 3}: mean 2, variance (1 + 1) / 2 = 1
            [0.0, 0.0, 6.0, neg],  # legal {0, 0, 6}: mean 2, variance (4 + 4 + 16) / 3 = 8
            [5.0, neg, neg, neg],  # one legal action: 0
        ]
    )
    mask = logits > neg / 2
    got = logit_spread(logits, mask)
    torch.testing.assert_close(got, torch.tensor([1.0, 8.0, 0.0]))
    # its gradient on a legal logit is 2 (z - mean) / n, and 0 on an illegal one
    z = logits.clone().requires_grad_()
    (g,) = torch.autograd.grad(logit_spread(z, mask).sum(), z)
    torch.testing.assert_close(g[0], torch.tensor([-1.0, 1.0, 0.0, 0.0]))
    torch.testing.assert_close(g[1], torch.tensor([-4 / 3, -4 / 3, 8 / 3, 0.0]))
    torch.testing.assert_close(g[2], torch.zeros(4))


def test_logit_l2_adds_its_penalty_to_the_loss_and_revives_a_dropped_action():
    """learner.rnad.logit_l2: the total loss grows by logit_l2 x the mean legal-logit
    variance over the valid steps, and an action at probability ~1e-26 (where the PPO and
    entropy gradients are ~0) gets a gradient that raises its logit."""
    from league.learn.rnad import logit_spread

    T, B, A = 2, 1, 3
    logits = torch.tensor([[[30.0, 0.0, -30.0]], [[2.0, 1.0, -1e9]]]).requires_grad_()
    mask = logits.detach() > -1e8
    valid = torch.ones(T, B, dtype=torch.bool)
    actions = torch.zeros(T, B, dtype=torch.long)
    mu_logp = torch.zeros(T, B)
    v = torch.zeros(T, B, requires_grad=True)
    zeros = torch.zeros(T, B)
    reward = torch.tensor([[0.0], [1.0]])
    args = (v, zeros, logits.detach(), logits.detach(), 1.0, mask, valid, actions, mu_logp, reward)
    base, _ = rnad_loss(logits, *args, RNaDLossConfig(eta=0.0, policy_loss="ppo"))
    pen, terms = rnad_loss(logits, *args, RNaDLossConfig(eta=0.0, policy_loss="ppo", logit_l2=0.5))
    want = 0.5 * float(logit_spread(logits.detach().view(T * B, A), mask.view(T * B, A)).mean())
    assert float(pen - base) == pytest.approx(want, rel=1e-6)
    assert float(terms["policy/logit_std"]) == pytest.approx((600.0**0.5 + 0.25**0.5) / 2, rel=1e-5)  # stds 24.49, 0.5
    (g_base,) = torch.autograd.grad(base, logits)
    (g_pen,) = torch.autograd.grad(pen, logits)
    assert abs(float(g_base[0, 0, 2])) < 1e-20  # the dropped action: no gradient without the penalty
    assert float(g_pen[0, 0, 2]) < -1.0  # with it, descent raises its logit (0.5 x 2 x -30 / 3 / 2 steps = -5)


def test_legal_columns_hand_table():
    """Each step's legal actions in order, then padding (column 0, not legal) up to one
    more than the most legal actions of a step: the last column is padding in every row."""
    mask = T_([[0, 1, 0, 1, 1], [1, 0, 0, 0, 0], [0, 0, 1, 0, 1]], dtype=torch.bool)
    cols, legal = legal_columns(mask)
    assert cols.tolist() == [[1, 3, 4, 0], [0, 0, 0, 0], [2, 4, 0, 0]]
    assert legal.tolist() == [[True, True, True, False], [True, False, False, False], [True, True, False, False]]
    cols, legal = legal_columns(torch.zeros(0, 5, dtype=torch.bool))  # no steps
    assert cols.shape == legal.shape == (0, 1)


def test_ppo_ratio_figures_hand_table():
    """ratios 1.0, 1.5, 0.5 on valid steps (a fourth, 1.1, padding): with eps 0.2 two of
    three lie outside [0.8, 1.2]; mean |r - 1| = (0 + 0.5 + 0.5) / 3."""
    mu = torch.log(torch.tensor([0.2, 0.2, 0.4, 0.5]))
    logp = torch.log(torch.tensor([0.2, 0.3, 0.2, 0.55]))
    valid = torch.tensor([True, True, True, False])
    got = ppo_ratio_figures(logp, mu, valid, 0.2)
    assert float(got["ppo/clip_frac"]) == pytest.approx(2 / 3)
    assert float(got["ppo/ratio_dev"]) == pytest.approx(1 / 3)
    assert float(ppo_ratio_figures(logp, mu, valid, 0.6)["ppo/clip_frac"]) == 0.0  # 0.5 and 1.5 inside [0.4, 1.6]


def test_ppo_dual_clip_hand_table():
    """eps 0.2, c 3; (ratio, advantage) per step, the term min(r A, clip(r) A) and, with the
    dual clip, max(that, c A) where A < 0:
        (5, -1): -5    -> -3   (bounded: no gradient left)
        (2, -1): -2    -> -2   (inside the bound)
        (5, +1):  1.2  ->  1.2 (a positive advantage: PPO's own clip)
        (0.5, -1): -0.8 -> -0.8
    loss = -mean: 6.6 / 4 = 1.65 without, 4.6 / 4 = 1.15 with; d loss / d log pi(a) of the
    first step: -A r / 4 = 1.25 without, 0 with."""
    from league.learn.rnad import ppo_clip_surrogate

    ratio = torch.tensor([5.0, 2.0, 5.0, 0.5])
    adv = torch.tensor([-1.0, -1.0, 1.0, -1.0])
    mu_logp = torch.full((4,), math.log(0.1))
    actions, valid = torch.zeros(4, dtype=torch.long), torch.ones(4, dtype=torch.bool)
    out = {}
    for c in (0.0, 3.0):
        log_pi = torch.stack([torch.log(ratio * 0.1), torch.log(1 - ratio * 0.1 + 0.6)], -1).requires_grad_()
        loss = ppo_clip_surrogate(log_pi, adv, actions, mu_logp, valid, epsilon=0.2, dual_clip=c)
        loss.backward()
        assert log_pi.grad is not None
        out[c] = (float(loss), log_pi.grad[:, 0].tolist())
    assert out[0.0][0] == pytest.approx(1.65) and out[3.0][0] == pytest.approx(1.15)
    assert out[0.0][1] == pytest.approx([1.25, 0.5, 0.0, 0.0])  # steps 3, 4: clipped, no gradient
    assert out[3.0][1] == pytest.approx([0.0, 0.5, 0.0, 0.0])


@pytest.mark.parametrize("adv", [-1.0, 1.0])
def test_ppo_clip_surrogate_stays_finite_when_the_behaviour_had_all_but_dropped_the_action(adv):
    """mu(a) = e^-100 (float32: pi / mu overflows to inf) and pi(a) ~ 1 now: with the dual
    clip the term is c A (A < 0) or (1 + eps) A (A > 0), and no gradient, not NaN."""
    from league.learn.rnad import ppo_clip_surrogate

    log_pi = torch.tensor([[-1e-3, math.log(1e-3)]]).requires_grad_()
    loss = ppo_clip_surrogate(
        log_pi,
        torch.tensor([adv]),
        torch.zeros(1, dtype=torch.long),
        torch.tensor([-100.0]),
        torch.ones(1, dtype=torch.bool),
        epsilon=0.2,
        dual_clip=3.0,
    )
    loss.backward()
    assert float(loss) == pytest.approx(-3.0 * adv if adv < 0 else -1.2 * adv)
    assert log_pi.grad is not None and log_pi.grad.abs().sum() == 0.0


@pytest.mark.parametrize("advantage", ["td", "group"])
def test_ppo_loss_is_finite_when_a_behaviour_probability_underflows(advantage):
    """A step whose behaviour log-prob is -200 (exp underflows to 0 in float32: the pick of
    a look-ahead the network had dropped, stored with sim.search_mu=network): v-trace's
    ratio read in log space, PPO-td's advantage the TD error itself (not coef / mu * mu),
    the surrogate's ratio capped. Before: 0 / 0 and inf * 0 made the loss NaN."""
    g = torch.Generator().manual_seed(3)
    T, B, A = 3, 2, 5
    logits = torch.randn(T, B, A, generator=g).requires_grad_()
    v = torch.tanh(torch.randn(T, B, generator=g)).requires_grad_()
    mask = torch.ones(T, B, A, dtype=torch.bool)
    valid = torch.ones(T, B, dtype=torch.bool)
    actions = torch.zeros(T, B, dtype=torch.long)
    reward = torch.tensor([[0.0, 0.0], [0.0, 0.0], [1.0, -1.0]])
    mu_logp = torch.full((T, B), math.log(0.2))
    mu_logp[1, 0] = -200.0
    cfg = RNaDLossConfig(policy_loss="ppo", ppo_advantage=advantage, ppo_dual_clip=3.0, rho_vtrace=1.0, eta=0.02)
    args = (logits, v, v.detach(), logits.detach(), logits.detach(), 1.0, mask, valid, actions, mu_logp, reward, cfg)
    kw = {"group_adv": torch.zeros(T, B)} if advantage == "group" else {}
    loss, terms = rnad_loss(*args, **kw)
    loss.backward()
    assert math.isfinite(float(loss)) and math.isfinite(float(terms["loss/value"]))
    assert logits.grad is not None and v.grad is not None
    assert bool(torch.isfinite(logits.grad).all()) and bool(torch.isfinite(v.grad).all())


def test_preview_lr_scale_moves_the_preview_head_that_many_times_faster():
    """Adam's first step (beta1 0, bias-corrected) moves each parameter with a gradient by
    ~lr * sign(g): lr 1e-3 for the rest, 5e-3 for the team-preview head with scale 5."""
    mc = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)
    plain = Learner(LearnerConfig(lr=1e-3), mc, seed=4)
    assert len(plain.opt.param_groups) == 1
    L = Learner(LearnerConfig(lr=1e-3, preview_lr_scale=5.0), mc, seed=4)
    assert [len(g["params"]) for g in L.opt.param_groups] == [len(list(L.net.parameters())) - 6, 6]
    before = {k: v.clone() for k, v in L.net.state_dict().items()}
    L.step(_batch())
    assert [g["lr"] for g in L.opt.param_groups] == pytest.approx([1e-3, 5e-3])
    moved = {k: float((v - before[k]).abs().max()) for k, v in L.net.state_dict().items()}
    assert moved["preview_out.weight"] == pytest.approx(5e-3, rel=0.01)
    assert moved["order_score.weight"] == pytest.approx(1e-3, rel=0.01)
    L2 = Learner(LearnerConfig(lr=1e-3, preview_lr_scale=5.0), mc)
    L2.load_state_dict(L.state_dict())  # the two groups travel in the checkpoint
    assert L2.step(_batch())["lr"] == pytest.approx(1e-3)


def test_another_epoch_on_one_batch_updates_the_return_normaliser_once():
    """learner.epochs > 1 hands the learner the same batch again: its returns count once in
    the normaliser's moments, and both epochs read the same scaled rewards."""
    mc = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32)
    L = Learner(LearnerConfig(reward=RewardConfig(normalize=True)), mc, seed=4)
    b = _batch()
    first = L.step(b)
    assert L.normalizer is not None and L.normalizer.n == 1
    again = L.step(b)
    assert L.normalizer.n == 1
    assert again["reward/scale"] == first["reward/scale"] and again["reward/return_std"] == first["reward/return_std"]
    L.step(_batch(seed=1))  # a new batch (the same data in a new object counts as new)
    assert L.normalizer.n == 2


def test_standardise_hand_table():
    from league.learn.rnad import standardise

    # mean 2, sample std 1
    assert standardise(torch.tensor([1.0, 2.0, 3.0])).tolist() == pytest.approx([-1.0, 0.0, 1.0])
    # mean 1, sample std sqrt(((−1)^2 + 1^2 + 0 + 0) / 3) = sqrt(2/3)
    s = math.sqrt(2 / 3)
    assert standardise(torch.tensor([0.0, 2.0, 1.0, 1.0])).tolist() == pytest.approx([-1 / s, 1 / s, 0.0, 0.0])
    assert standardise(torch.tensor([0.7])).tolist() == [0.0]  # one step: no spread to scale by


@pytest.mark.parametrize("norm", [False, True])
def test_ppo_adv_norm_makes_the_policy_step_blind_to_the_advantages_scale(norm):
    """learner.rnad.ppo_adv_norm: rewards and values ten times larger give ten times the TD
    errors; PPO's policy gradient grows with them unless the advantages are standardised."""
    g = torch.Generator().manual_seed(5)
    T, B, A = 4, 3, 5
    base_logits = torch.randn(T, B, A, generator=g)
    v0 = torch.tanh(torch.randn(T, B, generator=g))
    mask = torch.ones(T, B, A, dtype=torch.bool)
    valid = torch.ones(T, B, dtype=torch.bool)
    actions = torch.randint(0, A, (T, B), generator=g)
    mu_logp = torch.log_softmax(base_logits, -1).gather(-1, actions.unsqueeze(-1)).squeeze(-1)
    reward = torch.zeros(T, B)
    reward[-1] = torch.tensor([1.0, -1.0, 1.0])
    cfg = RNaDLossConfig(policy_loss="ppo", ppo_advantage="td", rho_vtrace=1.0, eta=0.0, ppo_adv_norm=norm)

    def policy_grad(k: float) -> torch.Tensor:
        logits = base_logits.clone().requires_grad_()
        v = (k * v0).requires_grad_()
        _, terms = rnad_loss(
            logits, v, v.detach(), logits.detach(), logits.detach(), 1.0, mask, valid, actions, mu_logp, k * reward, cfg
        )
        (grad,) = torch.autograd.grad(terms["loss/policy"], logits)
        return grad

    g1, g10 = policy_grad(1.0), policy_grad(10.0)
    assert float(g1.abs().max()) > 1e-4
    if norm:
        assert torch.allclose(g10, g1, atol=1e-5)
    else:
        assert torch.allclose(g10, 10 * g1, atol=1e-5)


def test_a_feed_forward_core_learns_its_core_from_a_batch():
    """model.recurrent=false in the learner: one update moves the feed-forward core's
    weights, with finite losses, and the network it holds has no GRU."""
    small = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32, recurrent=False)
    L = Learner(LearnerConfig(rnad=RNaDLossConfig(policy_loss="ppo", eta=0.02)), small, seed=0)
    assert not isinstance(L.net.core, torch.nn.GRU)
    before = L.net.core[0].weight.detach().clone()
    m = L.step(_batch())
    assert math.isfinite(m["loss/total"]) and math.isfinite(m["loss/value"])
    assert not torch.equal(L.net.core[0].weight, before)
