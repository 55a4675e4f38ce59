"""Learning from the look-ahead's picks (sim.search_share, learner.search_coef;
league/learn/search_target.py): the loss by hand, its checks, the data path (Trajectory,
shared memory, the Ray wire), the learner's term, and the acting server's request."""

from __future__ import annotations

import asyncio
import dataclasses
import math

import numpy as np
import pytest
import torch

from league.learn.learner import Learner, LearnerConfig
from league.learn.rnad import RNaDLossConfig
from league.learn.search_target import check_targets, search_target_loss
from league.model.net import ModelConfig, PolicyValueNet
from league.sim.lookahead import soft_pick
from league.sim.policy import PolicyServer
from league.transport.experience import SharedExperience
from tests.unit.test_experience import _traj
from tests.unit.test_rnad import _batch

SMALL = dict(mon_dim=16, torso_dim=32, core_dim=32)
LN2 = math.log(2.0)


def _table():
    """T=2, B=2 over 4 actions:
    (0, 0): logits [0, ln 2, 0, 0], action 2 masked: pi = [1/4, 1/2, 0, 1/4]; target 1;
    (0, 1): logits all 0, all legal: pi = 1/4 each; target 3 (argmax is 0: no agreement);
    (1, 0): no target (-1);
    (1, 1): a target on a padded step (valid False): not counted."""
    logits = torch.zeros(2, 2, 4)
    logits[0, 0, 1] = LN2
    mask = torch.ones(2, 2, 4, dtype=torch.bool)
    mask[0, 0, 2] = False
    target = torch.tensor([[1, 3], [-1, 2]])
    valid = torch.tensor([[True, True], [True, False]])
    return logits, mask, target, valid


def test_loss_and_figures_by_hand():
    logits, mask, target, valid = _table()
    logits.requires_grad_(True)
    loss, fig = search_target_loss(logits, mask, target, valid)
    loss_value = float(loss.detach())
    # -log(1/2) and -log(1/4) over the two counted targets
    assert loss_value == pytest.approx((LN2 + 2 * LN2) / 2)
    assert float(fig["search/ce"]) == pytest.approx(1.5 * LN2)
    assert float(fig["search/agree"]) == pytest.approx(0.5)  # (0, 0) agrees, (0, 1) does not
    assert float(fig["search/targets"]) == 2.0
    loss.backward()
    # d/dlogits of -log pi(t) / n = (pi - onehot(t)) / 2 on counted steps, 0 elsewhere
    g = logits.grad
    torch.testing.assert_close(g[0, 0], torch.tensor([0.25, -0.5, 0.0, 0.25]) / 2)
    torch.testing.assert_close(g[0, 1], torch.tensor([0.25, 0.25, 0.25, -0.75]) / 2)
    assert (g[1] == 0).all()


def test_without_targets_the_loss_is_zero_and_its_figures_are_left_out():
    logits, mask, _, valid = _table()
    logits.requires_grad_(True)
    loss, fig = search_target_loss(logits, mask, torch.full((2, 2), -1), valid)
    assert float(loss.detach()) == 0.0 and float(fig["search/targets"]) == 0.0
    assert math.isnan(float(fig["search/ce"])) and math.isnan(float(fig["search/agree"]))
    loss.backward()
    assert (logits.grad == 0).all()


def test_a_target_that_is_not_legal_at_its_step_is_refused():
    _, mask, target, valid = _table()
    check_targets(target, mask, valid)  # the table's are legal
    bad = target.clone()
    bad[0, 0] = 2  # masked at (0, 0)
    with pytest.raises(ValueError, match="not a legal action"):
        check_targets(bad, mask, valid)
    bad[0, 0] = 4  # past the actions
    with pytest.raises(ValueError, match="past the 4 actions"):
        check_targets(bad, mask, valid)
    padded = target.clone()
    padded[1, 1] = 2
    mask2 = mask.clone()
    mask2[1, 1, 2] = False
    check_targets(padded, mask2, valid)  # a padded step's target is never read


def test_targets_travel_through_shared_memory_and_the_ray_wire():
    from league.coordinator.ray_placement.wire import trajectory_from_wire, trajectory_wire

    exp = SharedExperience(n_slots=3, t_max=8)
    t = _traj(3, 1.0, 0.0)
    t.target = [-1, 2, 3]  # step i's legal actions are i and i + 1 (_traj)
    plain = _traj(5, -1.0, 1.0)  # no step searched
    exp.write(0, t)
    exp.write(1, plain)
    b = exp.batch([0, 1])
    assert b.target.shape == (5, 2)
    assert b.target[:, 0].tolist() == [-1, 2, 3, -1, -1]  # padding: none
    assert b.target[:, 1].tolist() == [-1] * 5
    check_targets(b.target, b.mask, b.valid)
    exp.write(0, plain)  # a reused slot forgets the previous trajectory's targets
    assert exp.batch([0]).target[:, 0].tolist() == [-1] * 5
    short = _traj(3, 1.0, 0.0)
    short.target = [-1, 2]
    with pytest.raises(ValueError, match="2 search targets"):
        exp.write(2, short)
    back = trajectory_from_wire(trajectory_wire(t))
    assert back.target == [-1, 2, 3] and trajectory_from_wire(trajectory_wire(plain)).target == []


def test_the_learner_learns_the_targets_and_only_when_asked():
    b = _batch(seed=3)
    T, B = b.actions.shape
    g = torch.Generator().manual_seed(7)
    target = torch.full((T, B), -1)
    for t in range(1, T):  # turn steps: a legal action each, drawn
        for j in range(B):
            legal = b.mask[t, j].nonzero().flatten()
            target[t, j] = int(legal[torch.randint(len(legal), (1,), generator=g)])
    searched = dataclasses.replace(b, target=target)
    ppo = RNaDLossConfig(policy_loss="ppo")  # reg_c's loss

    def learner(coef: float) -> Learner:
        return Learner(LearnerConfig(lr=1e-3, search_coef=coef, rnad=ppo), ModelConfig(**SMALL), seed=4)

    def ce(L: Learner) -> float:  # the policy's cross-entropy to the targets now
        with torch.no_grad():
            logits, _ = L._forward(L.net, searched, searched.valid)
        return float(search_target_loss(logits, searched.mask, target, searched.valid)[0])

    on, off = learner(1.0), learner(0.0)
    start = ce(on)
    first = on.step(searched)
    assert first["search/targets"] == (T - 1) * B and first["search/ce"] == pytest.approx(start, rel=1e-4)
    for _ in range(20):
        on.step(searched)
        m_off = off.step(searched)
    # the same RL data and seed: only the term tells the two apart
    assert ce(on) < 0.8 * start and ce(on) < 0.8 * ce(off)
    # learner.search_coef 0, or a batch without targets: no term, no figures, the same update
    off, plain = learner(0.0), learner(1.0)
    m_off, m_plain = off.step(searched), plain.step(dataclasses.replace(b, target=torch.full((T, B), -1)))
    assert not any(k.startswith("search/") for k in (*m_off, *m_plain))
    for (name, p), q in zip(off.net.named_parameters(), plain.net.parameters(), strict=True):
        torch.testing.assert_close(p, q, msg=name)
    once = learner(1.0)
    once.step(searched)
    assert any(not torch.equal(p, q) for p, q in zip(once.net.parameters(), off.net.parameters()))
    bad = target.clone()
    bad[1, 0] = int((~b.mask[1, 0]).nonzero()[0])
    with pytest.raises(ValueError, match="not a legal action"):
        once.step(dataclasses.replace(b, target=bad))


def test_act_and_top_draws_as_act_and_lists_as_act_top():
    """The learning player's searched request: the same draw (and log-prob) as a plain
    decision from a server seeded alike, and the same candidates as a search player's."""
    from tests.unit.test_policy_server import recorded_steps

    torch.manual_seed(0)
    net = PolicyValueNet(ModelConfig(**SMALL))
    obs, mask, prev = recorded_steps(2, 1)
    o, m = obs[1, 0].numpy(), mask[1, 0].numpy()

    async def ask(kind: str):
        server = PolicyServer(net, "p", seed=11)
        await server.act("x", obs[0, 0].numpy(), mask[0, 0].numpy(), bool(prev[0, 0]))  # the state moves on
        if kind == "act":
            return await server.act("x", o, m, False)
        if kind == "top":
            return await server.act_top("x", o, m, False, 6)
        return await server.act_and_top("x", o, m, False, 6)

    (a, lp), (top, top_lp), both = (asyncio.run(ask(k)) for k in ("act", "top", "both"))
    assert both[0] == a and both[1] == pytest.approx(lp)
    assert both[2] == top and both[3] == pytest.approx(top_lp) and len(top) == 6
    assert all(np.asarray(m)[x] for x in top)
    with pytest.raises(ValueError, match="k must be"):
        PolicyServer(net, "p").act_and_top("x", o, m, False, 0)


class _FixedDraw:
    """An rng whose ``random()`` is ``u``: soft_pick's draw read off by hand."""

    def __init__(self, u: float):
        self.u = u

    def random(self) -> float:
        return self.u


# values [0, 0.25, None], the network's odds 1 : 1 (the third's log-prob is ignored: no
# value), tau 0.25: weights 1/2 e^0 : 1/2 e^1, so candidate 0 is drawn for
# u < 1 / (1 + e) = 0.26894 and candidate 1 above; the one without a value never.
@pytest.mark.parametrize("u, pick", [(0.0, 0), (0.268, 0), (0.27, 1), (0.999999, 1)])
def test_a_soft_pick_draws_by_the_prior_times_exp_value_over_tau(u, pick):
    values, logps = [0.0, 0.25, None], [math.log(0.5), math.log(0.5), 0.0]
    assert soft_pick(values, logps, 0.25, _FixedDraw(u)) == pick


def test_a_soft_pick_weighs_the_network_odds_and_tends_to_the_argmax():
    import random

    # equal values: the network's own odds 3 : 1 (u below 0.75 picks 0)
    assert soft_pick([0.1, 0.1], [math.log(0.75), math.log(0.25)], 0.05, _FixedDraw(0.74)) == 0
    assert soft_pick([0.1, 0.1], [math.log(0.75), math.log(0.25)], 0.05, _FixedDraw(0.76)) == 1
    # a small tau: the better value wins nearly every draw, even against 99 : 1 odds
    assert soft_pick([0.0, 0.25], [math.log(0.99), math.log(0.01)], 0.005, _FixedDraw(0.001)) == 1
    assert soft_pick([None, -1.0], [0.0, -9.0], 0.05, _FixedDraw(0.0)) == 1
    # the frequency over 20,000 seeded draws is the table's 1 - 1/(1+e) = 0.7311 (a fixed seed)
    rng = random.Random(0)
    n = sum(soft_pick([0.0, 0.25], [math.log(0.5)] * 2, 0.25, rng) for _ in range(20_000))
    assert n / 20_000 == pytest.approx(math.e / (1 + math.e), abs=0.01)


@pytest.mark.parametrize(
    "retired, finished, seated, want",
    [
        (False, False, True, True),  # a live battle: a look-ahead that finds nothing is a skip
        (True, False, True, False),  # the run stopped: the player is retired
        (False, True, True, False),  # the battle is over
        (False, False, False, False),  # the client stopped listening, or dropped the battle
    ],
)
def test_a_look_ahead_counts_as_skipped_only_in_a_battle_still_played(retired, finished, seated, want):
    """``in_play``: a look-ahead that comes back empty (``search_skipped`` /
    ``targets_skipped``) counts only for a battle the player still plays; one that ends
    under it, or a player stopped at the run's end, sends no choice."""
    from types import SimpleNamespace

    from league.sim.policy import NeuralPlayer

    player = NeuralPlayer(policy=PolicyServer(PolicyValueNet(ModelConfig(**SMALL)), "main"), start_listening=False)
    player.ps_client = SimpleNamespace(seats={"b1": "p1"} if seated else {})
    player.retired = retired
    assert player.in_play(SimpleNamespace(battle_tag="b1", finished=finished)) is want


# decisive(values, best, margin): the pick beats the likeliest (index 0) by at least the margin
@pytest.mark.parametrize(
    "values, best, margin, want",
    [
        ([0.0, 0.25], 1, 0.1, True),  # 0.25 past 0.0
        ([0.0, 0.25], 1, 0.25, True),  # exactly the margin
        ([0.0, 0.25], 1, 0.3, False),  # short of it
        ([0.5, 0.25, 0.6], 2, 0.1, True),  # 0.6 - 0.5
        ([0.5, 0.25, 0.55], 2, 0.1, False),  # 0.05 only
        ([None, -0.5], 1, 0.1, True),  # the likeliest refused: any valued pick beats it
        ([0.3, None], 1, 0.1, False),  # a pick without a value never
        ([0.3, 0.9], 0, 0.1, False),  # the likeliest never beats itself
    ],
)
def test_a_pick_is_decisive_by_its_margin_over_the_likeliest(values, best, margin, want):
    from league.sim.lookahead import decisive

    assert decisive(values, best, margin) is want


def _fake_fork(values):
    async def fork(tag, choices, samples, seed, foe_ev=None):
        assert len(choices) == len(values)
        return list(values)

    return fork


@pytest.mark.parametrize(
    "values, margin, want",
    [
        ([0.0, 0.3, 0.1], 0.0, 1),  # no margin: the arg-max
        ([0.0, 0.3, 0.1], 0.25, 1),  # 0.3 past 0.0: decisive
        ([0.0, 0.3, 0.1], 0.35, -1),  # a near-tie: no pick
        ([0.2, 0.1, 0.15], 0.05, 0),  # the likeliest is the best: it stays the pick
    ],
)
def test_a_look_ahead_with_a_margin_drops_the_near_ties(monkeypatch, values, margin, want):
    import random

    from league.sim import lookahead

    monkeypatch.setattr(lookahead, "joint_message", lambda view, a: f"/choose {a}")
    got = asyncio.run(
        lookahead.look_ahead(_fake_fork(values), "b1", None, [7, 8, 9], [0.0] * 3, 1, random.Random(0), margin=margin)
    )
    assert got == want


@pytest.mark.parametrize(
    "values, margin, target, changed, close",
    [
        ([0.0, 0.3], 0.0, 8, 1, 0),  # no margin: every pick is a target
        ([0.0, 0.05], 0.0, 8, 1, 0),  # ... a near-tie too
        ([0.2, 0.1], 0.0, 7, 0, 0),  # ... and the likeliest
        ([0.0, 0.3], 0.1, 8, 1, 0),  # decisive: a target
        ([0.0, 0.05], 0.1, -1, 0, 1),  # a near-tie: none, counted as close
        ([0.2, 0.1], 0.1, 7, 0, 0),  # the look-ahead confirms the network's choice: a target
    ],
)
def test_the_main_agent_drops_the_near_ties_from_its_targets(monkeypatch, values, margin, target, changed, close):
    """sim.search_margin: a searched request whose pick is another action than the likeliest
    and beats it by less than the margin is counted as searched and close, and stores no
    target; a decisive pick and a confirmed likeliest action stay targets."""
    from types import SimpleNamespace

    from league.sim import lookahead
    from league.sim.policy import NeuralPlayer

    monkeypatch.setattr(lookahead, "joint_message", lambda view, a: f"/choose {a}")
    player = NeuralPlayer(policy=PolicyServer(PolicyValueNet(ModelConfig(**SMALL)), "main"), start_listening=False)
    player.ps_client = SimpleNamespace(fork=_fake_fork(values), seats={"b1": "p1"})
    player.search_margin = margin
    battle = SimpleNamespace(battle_tag="b1", finished=False)
    got = asyncio.run(player._search_target(battle, SimpleNamespace(view=None), [7, 8], [0.0, -1.0]))
    assert got == target
    assert (player.targets, player.targets_changed, player.targets_close, player.targets_skipped) == (
        1,
        changed,
        close,
        0,
    )
