"""The network is equivariant where the game is, and its forward and R-NaD loss run under
float16 and bfloat16 autocast (masking in float32)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
from torch import nn

from league.battle.actions import PREVIEW_ACTIONS, SLOT_ACTIONS, decode_preview, preview_action
from league.battle.obs import split
from league.learn.rnad import RNaDLossConfig, legal_log_policy, rnad_loss
from league.model.net import (
    LEGAL_ORDERS_MIN_STEPS,
    NEG_INF,
    ModelConfig,
    PolicyValueNet,
    joint_ko_features,
    model_sizes,
)
from tests.recorded import decisions, recorded_steps

# every input read
SMALL = ModelConfig(mon_dim=32, torso_dim=64, core_dim=64, action_dim=32, threat=True, joint_ko=True)


def _net(seed: int = 0) -> PolicyValueNet:
    torch.manual_seed(seed)
    net = PolicyValueNet(SMALL).eval()
    # logits of order 1, not 1e-3 (and the joint KO term's weights not 0)
    for m in (net.order_score, net.pair_u, net.pair_v, net.preview_out, net.joint_ko):
        nn.init.normal_(m.weight, std=0.5)
    return net


def _logits(net, obs: np.ndarray, mask: np.ndarray, preview: bool = False) -> torch.Tensor:
    o = torch.from_numpy(obs)[None, None]
    m = torch.from_numpy(mask)[None, None]
    with torch.no_grad():
        lg, _, _ = net(o, m, torch.tensor([[preview]]), net.initial_state(1))
    return lg[0, 0]


def _turn_with_both_slots_and_foes():
    """A recorded turn where both our slots have four moves and both foes are on the field."""
    for side in decisions():
        for obs, mask, prev in side:
            v = split(obs)
            if prev or (v["slots"] >= 12).any():
                continue
            if (v["act_ids"] > 1).all() and v["act_target"][:, :, 3, 0, 0].any():
                return obs.copy(), mask.copy()
    raise AssertionError("no suitable decision in the recorded battles")


def _slot_perm(new_of_old) -> np.ndarray:
    """sigma[a_new] = a_old over one slot's 45 orders, for a map of (move, target) indices."""
    sigma = np.arange(SLOT_ACTIONS)
    for a in range(40):
        m, t, b = a // 10, (a % 10) // 2, a % 2
        m2, t2 = new_of_old(m, t)
        sigma[10 * m2 + 2 * t2 + b] = a
    return sigma


def _permute_joint(x: torch.Tensor | np.ndarray, s0: np.ndarray, s1: np.ndarray):
    j = x.reshape(SLOT_ACTIONS, SLOT_ACTIONS)
    return j[s0][:, s1].reshape(-1)


@pytest.mark.parametrize("slot", [0, 1])
def test_permuting_a_pokemons_moves_permutes_its_logits(slot):
    net = _net()
    obs, mask = _turn_with_both_slots_and_foes()
    before = _logits(net, obs, mask)
    perm = np.array([2, 0, 3, 1])  # new move j takes old move perm[j]
    inv = np.argsort(perm)
    new = obs.copy()
    v = split(new)
    row = int(v["slots"][slot])
    for block in ("act_ids", "act_move", "act_target"):
        v[block][slot] = v[block][slot][perm]
    v["ids"][row, 3:7] = v["ids"][row, 3:7][perm]
    v["mon_moves"][row] = v["mon_moves"][row][perm]
    sigma = _slot_perm(lambda m, t: (int(inv[m]), t))
    ident = np.arange(SLOT_ACTIONS)
    s0, s1 = (sigma, ident) if slot == 0 else (ident, sigma)
    new_mask = _permute_joint(mask, s0, s1)
    after = _logits(net, new, np.ascontiguousarray(new_mask))
    expected = _permute_joint(before, s0, s1)
    torch.testing.assert_close(after, expected, rtol=1e-4, atol=1e-4)
    legal = torch.from_numpy(new_mask)
    assert (after[legal] - before[legal]).abs().max() > 1e-2  # the moves matter: not a trivial pass


def test_swapping_the_opponents_actives_swaps_the_target_logits():
    net = _net(1)
    obs, mask = _turn_with_both_slots_and_foes()
    before = _logits(net, obs, mask)
    new = obs.copy()
    v = split(new)
    v["slots"][2], v["slots"][3] = v["slots"][3].copy(), v["slots"][2].copy()
    v["act_target"][:, :, [3, 4]] = v["act_target"][:, :, [4, 3]]
    assert v["threat"][:, :, 1].any()  # the foes' threats are in it, and move with them
    v["threat"][:, [0, 1]] = v["threat"][:, [1, 0]]
    sigma = _slot_perm(lambda m, t: (m, {3: 4, 4: 3}.get(t, t)))
    new_mask = _permute_joint(mask, sigma, sigma)
    after = _logits(net, new, np.ascontiguousarray(new_mask))
    torch.testing.assert_close(after, _permute_joint(before, sigma, sigma), rtol=1e-4, atol=1e-4)
    legal = torch.from_numpy(new_mask)
    assert (after[legal] - before[legal]).abs().max() > 1e-2


def test_reordering_our_team_at_preview_permutes_the_picks():
    net = _net(2)
    obs, mask, prev = decisions()[0][0]
    assert prev
    before = _logits(net, obs, mask, preview=True)
    perm = np.array([3, 5, 0, 1, 4, 2])  # new team position i holds old position perm[i]
    inv = np.argsort(perm)
    new = obs.copy()
    v = split(new)
    for block in ("ids", "mons", "mon_moves"):
        v[block][:6] = v[block][:6][perm]
    after = _logits(net, new, mask, preview=True)
    for idx in range(PREVIEW_ACTIONS):
        l0, l1, b0, b1 = decode_preview(idx)
        moved = preview_action((int(inv[l0]), int(inv[l1])), (int(inv[b0]), int(inv[b1])))
        assert after[moved].item() == pytest.approx(before[idx].item(), abs=1e-4)
    assert (after[:PREVIEW_ACTIONS] - before[:PREVIEW_ACTIONS]).abs().max() > 1e-2


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_forward_and_rnad_loss_under_autocast(dtype):
    torch.manual_seed(0)
    net = PolicyValueNet(SMALL)
    obs, mask, prev = recorded_steps(4, 3)
    valid = torch.ones(4, 3, dtype=torch.bool)
    actions = torch.stack([torch.multinomial(m.float(), 1).squeeze(-1) for m in mask.view(-1, mask.shape[-1])]).view(
        4, 3
    )
    reward = torch.zeros(4, 3)
    reward[-1] = torch.tensor([1.0, -1.0, 1.0])
    with torch.autocast("cpu", dtype=dtype):
        logits, v, _ = net(obs, mask, prev, net.initial_state(3))
        mu_logp = legal_log_policy(logits.detach(), mask).gather(-1, actions[..., None]).squeeze(-1)
        loss, terms = rnad_loss(
            logits,
            v.float(),
            v.float().detach(),
            logits.detach(),
            logits.detach(),
            0.5,
            mask,
            valid,
            actions,
            mu_logp,
            reward,
            RNaDLossConfig(),
        )
    assert logits.dtype == torch.float32 and (logits[~mask] == NEG_INF).all()
    assert torch.isfinite(logits[mask]).all() and torch.isfinite(loss)
    loss.backward()
    grads = [p.grad for p in net.parameters() if p.grad is not None]
    assert grads and all(torch.isfinite(g).all() for g in grads)
    assert net.order_score.weight.grad.abs().sum() > 0


def test_value_only_forward_matches_the_full_forward():
    net = _net(3)
    obs, mask, prev = recorded_steps(3, 2)
    with torch.no_grad():
        _, v_full, h_full = net(obs, mask, prev, net.initial_state(2))
        none, v_only, h_only = net(obs, mask, prev, net.initial_state(2), policy=False)
    assert none is None
    torch.testing.assert_close(v_only, v_full)
    torch.testing.assert_close(h_only, h_full)


def test_move_tokens_looked_up_per_move_match_the_direct_form():
    """A batch with more move slots than moves in the vocabulary (a learner's) computes
    each move's part of its token once per move and looks it up; each step alone (48
    slots: acting) uses the direct form. Same encodings and gradients, and the move
    embedding's padding row learns nothing either way."""
    net = _net(5).train()
    obs, _, _ = recorded_steps(7, 4)  # every recorded decision of the 4 sides' first 7
    obs = obs.reshape(28, -1)
    assert 28 * 48 > net.move_static.shape[0]  # the whole batch takes the per-move form
    grads = []
    for chunks in ([obs], list(obs.split(1))):
        net.zero_grad()
        e = torch.cat([net.pokemon(c) for c in chunks])
        e.square().sum().backward()
        grads.append((e.detach(), {n: p.grad.clone() for n, p in net.named_parameters() if p.grad is not None}))
    (e_batch, g_batch), (e_steps, g_steps) = grads
    torch.testing.assert_close(e_batch, e_steps, rtol=1e-4, atol=1e-5)
    assert g_batch.keys() == g_steps.keys() and "mon_move.0.weight" in g_batch
    for name in g_batch:
        torch.testing.assert_close(g_batch[name], g_steps[name], rtol=1e-4, atol=1e-4)
    assert g_batch["moves.weight"][0].abs().sum() == 0 and g_batch["moves.weight"].abs().sum() > 0


@pytest.mark.parametrize("threat", [False, True])
def test_turn_head_on_the_legal_orders_only_matches_every_order(threat):
    """With ``slot_legal`` only the orders some legal joint action uses go through the
    order MLP: on real decisions every legal joint action's logit and every gradient are
    those of the dense form (sharp output layers, so the pair term matters)."""
    torch.manual_seed(0)
    net = PolicyValueNet(ModelConfig(threat=threat)).train()
    for head in (net.order_score, net.pair_u, net.pair_v):
        nn.init.normal_(head.weight, std=0.3)
    obs, mask, prev = recorded_steps(7, 4)
    joint = mask.view(7, 4, SLOT_ACTIONS, SLOT_ACTIONS)
    slot_legal = torch.stack([joint.any(-1), joint.any(-2)], -2) & ~prev[..., None, None]
    used = mask & ~prev[..., None]  # the turn steps' legal joint actions
    assert 0 < int(slot_legal.sum()) < slot_legal.numel() // 2  # most orders are left out
    weights = torch.randn(int(used.sum()), generator=torch.Generator().manual_seed(1))
    outs = []
    for legal in (slot_legal, None):
        net.zero_grad()
        e = net.pokemon(obs)
        z = net.torso_of(obs, e)
        logits = net.turn_logits(obs, e, torch.cat([z, z], -1), legal)
        (logits[used] * weights).sum().backward()
        outs.append(
            (logits.detach()[used], {n: p.grad.clone() for n, p in net.named_parameters() if p.grad is not None})
        )
    (lg_legal, g_legal), (lg_all, g_all) = outs
    torch.testing.assert_close(lg_legal, lg_all, rtol=1e-5, atol=1e-5)
    assert g_legal.keys() == g_all.keys() and "order_mlp.0.weight" in g_legal
    for name in g_all:
        torch.testing.assert_close(g_legal[name], g_all[name], rtol=1e-4, atol=1e-4)


def test_a_learner_sized_forward_takes_the_legal_orders_only():
    """On the CPU a forward of LEGAL_ORDERS_MIN_STEPS steps or more hands the turn head
    each step's legal slot orders; a smaller one (acting) hands it none (every order)."""
    net = _net(2)
    seen = []
    real = net.turn_logits
    net.turn_logits = lambda obs, e, x, slot_legal=None: seen.append(slot_legal) or real(obs, e, x, slot_legal)
    obs, mask, prev = recorded_steps(7, 4)
    big = LEGAL_ORDERS_MIN_STEPS // 28 + 1
    with torch.no_grad():
        net(obs, mask, prev, net.initial_state(4))  # 28 steps
        net(obs.repeat(1, big, 1), mask.repeat(1, big, 1), prev.repeat(1, big), net.initial_state(4 * big))
    assert seen[0] is None
    joint = mask.view(7, 4, SLOT_ACTIONS, SLOT_ACTIONS)
    want = torch.stack([joint.any(-1), joint.any(-2)], -2) & ~prev[..., None, None]
    assert torch.equal(seen[1], want.repeat(1, big, 1, 1))


def test_a_compiled_forward_takes_the_dense_forms_at_learner_sizes():
    """Under torch.compile (sim.compile's dynamic acting forward) a forward of learner size
    takes the dense forms, as a small one does: no more graph breaks than the small one
    (the legal orders' data-dependent count would add one and recompile at every batch).
    Compiled outputs: tests/unit/test_gpu_path.py."""
    net = _net(3).eval()
    obs, mask, prev = recorded_steps(7, 4)
    big = LEGAL_ORDERS_MIN_STEPS // 28 + 1
    sizes = {"small": (obs[:, :1], mask[:, :1], prev[:, :1], 1)}  # 7 steps
    sizes["big"] = (obs.repeat(1, big, 1), mask.repeat(1, big, 1), prev.repeat(1, big), 4 * big)
    breaks = {}
    with torch.no_grad():
        for name, (o, m, p, b) in sizes.items():
            torch._dynamo.reset()
            breaks[name] = torch._dynamo.explain(net)(o, m, p, net.initial_state(b)).graph_break_count
    torch._dynamo.reset()
    assert breaks["big"] == breaks["small"]


def test_packed_forward_matches_the_padded_one_on_real_steps():
    """With ``valid`` the per-step parts run on the real steps only: the same logits,
    values and gradients there as the plain forward over the padded grid."""
    net = _net(4).train()
    obs, mask, prev = recorded_steps(5, 3)
    valid = torch.tensor([[1, 1, 1], [1, 1, 1], [1, 0, 1], [1, 0, 0], [1, 0, 0]], dtype=torch.bool)
    outs = []
    for v in (None, valid):
        net.zero_grad()
        logits, value, _ = net(obs, mask, prev, net.initial_state(3), valid=v)
        (logits.masked_fill(~mask, 0.0)[valid].sum() + value[valid].sum()).backward()
        outs.append((logits, value, [p.grad.clone() for p in net.parameters() if p.grad is not None]))
    (lg_full, v_full, g_full), (lg_pack, v_pack, g_pack) = outs
    torch.testing.assert_close(lg_pack[valid], lg_full[valid])
    torch.testing.assert_close(v_pack[valid], v_full[valid])
    assert (lg_pack[~valid] == NEG_INF).all() and (v_pack[~valid] == 0).all()
    assert len(g_pack) == len(g_full) > 0
    for a, b in zip(g_pack, g_full):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-5)
    with pytest.raises(AssertionError, match="right-padded"):
        net(obs, mask, prev, net.initial_state(3), valid=valid.flip(0))


def test_more_attention_blocks_run_after_the_first_and_one_block_is_the_network_it_was():
    torch.manual_seed(0)
    one = PolicyValueNet(SMALL).eval()
    torch.manual_seed(0)
    three = PolicyValueNet(dataclasses.replace(SMALL, attn_layers=3)).eval()
    # one block (the default) has no new parameters: a checkpoint of before loads
    assert not any(k.startswith("attn_more") for k in one.state_dict())
    extra = {k for k in three.state_dict() if k.startswith("attn_more")}
    assert {k.split(".")[1] for k in extra} == {"0", "1"} and set(three.state_dict()) - extra == set(one.state_dict())
    # the extra blocks with zero output projections are the identity: the one-block network's outputs
    three.load_state_dict(one.state_dict(), strict=False)
    with torch.no_grad():
        for block in three.attn_more:
            for lin in (block.attn.out_proj, block.ff[-1]):
                lin.weight.zero_()
                lin.bias.zero_()
    obs, mask, prev = recorded_steps(3, 2)
    with torch.no_grad():
        lg1, v1, _ = one(obs, mask, prev, one.initial_state(2))
        lg3, v3, _ = three(obs, mask, prev, three.initial_state(2))
        torch.testing.assert_close(lg3, lg1)
        torch.testing.assert_close(v3, v1)
        three.attn_more[1].ff[-1].bias.fill_(0.5)  # the last block now adds something: outputs move
        lg3b, v3b, _ = three(obs, mask, prev, three.initial_state(2))
    legal = mask.bool()
    assert (lg3b[legal] - lg1[legal]).abs().max() > 1e-3 and (v3b - v1).abs().max() > 1e-4
    # a checkpoint's model settings from before ``attn_layers`` existed: one block
    stored = {k: v for k, v in dataclasses.asdict(SMALL).items() if k != "attn_layers"}
    assert model_sizes(stored)["attn_layers"] == 1


def test_a_value_network_of_its_own_reads_no_policy_weight_and_steps_as_it_runs_whole():
    """model.value_net: the value comes from a trunk of its own. The value loss reaches
    none of the policy's weights and the policy loss none of the value's; the state
    carries both GRUs, so a battle played one decision at a time (the simulator) gets
    the outputs of the whole sequence at once (the learner), packed or not; value only
    (the target's forward) gives the same values."""
    torch.manual_seed(0)
    net = PolicyValueNet(dataclasses.replace(SMALL, value_net=True)).train()
    for m in (net.order_score, net.pair_u, net.pair_v, net.preview_out):
        nn.init.normal_(m.weight, std=0.5)
    trunk = net.value_trunk
    assert trunk is not None and net.state_dim == 2 * SMALL.core_dim
    assert not hasattr(trunk, "order_score") and not hasattr(trunk, "value_head")
    value_params = {id(p) for p in trunk.parameters()} | {id(p) for p in net.value_head.parameters()}
    obs, mask, prev = recorded_steps(5, 3)
    valid = torch.tensor([[1, 1, 1], [1, 1, 1], [1, 0, 1], [1, 0, 0], [1, 0, 0]], dtype=torch.bool)
    logits, value, _ = net(obs, mask, prev, net.initial_state(3), valid=valid)
    value[valid].sum().backward()
    assert all(p.grad is None or not p.grad.abs().sum() for p in net.parameters() if id(p) not in value_params)
    assert net.value_head[0].weight.grad.abs().sum() > 0 and trunk.species.weight.grad.abs().sum() > 0
    net.zero_grad(set_to_none=True)
    logits.masked_fill(~mask, 0.0)[valid].sum().backward()
    assert all(p.grad is None or not p.grad.abs().sum() for p in net.parameters() if id(p) in value_params)
    assert net.order_score.weight.grad.abs().sum() > 0 and net.species.weight.grad is not None
    net.eval()
    with torch.no_grad():
        lg_all, v_all, _ = net(obs, mask, prev, net.initial_state(3))
        _, v_only, _ = net(obs, mask, prev, net.initial_state(3), policy=False, valid=valid)
        _, v_only_steps, _ = net(obs, mask, prev, net.initial_state(3), policy=False)
        h = net.initial_state(3)
        for t in range(5):
            lg_t, v_t, h = net(obs[t : t + 1], mask[t : t + 1], prev[t : t + 1], h)
            torch.testing.assert_close(lg_t[0], lg_all[t], rtol=1e-4, atol=1e-4)
            torch.testing.assert_close(v_t[0], v_all[t], rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(v_only[valid], v_all[valid], rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(v_only_steps, v_all, rtol=1e-4, atol=1e-5)
    # without it the network is the one it was: no new weights, a one-GRU state
    plain = PolicyValueNet(SMALL)
    assert plain.value_trunk is None and plain.state_dim == SMALL.core_dim
    assert not any(k.startswith("value_trunk") for k in plain.state_dict())
    stored = {k: v for k, v in dataclasses.asdict(SMALL).items() if k != "value_net"}
    assert model_sizes(stored)["value_net"] is False


def _hit(v, slot: int, move: int, target: int, lo: float, hi: float, ko_lo: bool, ko_hi: bool) -> None:
    """An order's act_target row as _target_row writes it for a single-target move."""
    row = v["act_target"][slot, move, target, 0]
    row[0], row[5], row[6], row[7], row[8] = 1.0, lo, hi, ko_lo / 2, ko_hi / 2


def test_joint_ko_features_by_hand():
    obs = np.zeros_like(decisions()[0][0][0])
    v = split(obs)
    _hit(v, 0, 0, 3, 0.6, 0.8, False, False)  # slot a, move 1 on foe a: 60-80 % of its HP
    _hit(v, 0, 1, 3, 1.0, 1.0, True, True)  # slot a, move 2 on foe a: a sure KO
    _hit(v, 1, 1, 3, 0.5, 0.7, False, False)  # slot b, move 2 on foe a: 50-70 %
    _hit(v, 1, 2, 4, 1.0, 1.0, True, True)  # slot b, move 3 on foe b: a sure KO
    _hit(v, 1, 3, 4, 0.3, 0.45, False, False)  # slot b, move 4 on foe b: 30-45 %
    f = joint_ko_features(torch.from_numpy(obs))
    assert f.shape == (SLOT_ACTIONS, SLOT_ACTIONS, 6)
    o = lambda m, t: 10 * m + 2 * t  # noqa: E731 (slot order, no tera)
    # (slot a's order, slot b's) -> [same foe, KO together sure, KO together maybe, a hit wasted, foes down sure, maybe]
    table = {
        (o(0, 3), o(1, 3)): [1, 1, 1, 0, 1, 1],  # 0.6 + 0.5 >= 1: the two KO foe a, neither alone
        (o(0, 3), o(2, 4)): [0, 0, 0, 0, 1, 1],  # foe b falls to slot b alone
        (o(1, 3), o(1, 3)): [1, 0, 0, 1, 1, 1],  # slot a KOs foe a alone: slot b's hit on it is wasted
        (o(1, 3), o(2, 4)): [0, 0, 0, 0, 2, 2],  # both foes fall, one each
        (o(0, 3), o(3, 4)): [0, 0, 0, 0, 0, 0],  # 0.6-0.8 on a, 0.3-0.45 on b: nobody falls
        (o(1, 3), o(3, 4)): [0, 0, 0, 0, 1, 1],
        (40, o(2, 4)): [0, 0, 0, 0, 1, 1],  # slot a switches; slot b still KOs foe b
        (o(0, 3), 44): [0, 0, 0, 0, 0, 0],  # slot b passes
    }
    for (a, b), want in table.items():
        assert f[a, b].tolist() == want, (a, b)
    # upper rolls only: 0.6 + 0.3 < 1 <= 0.8 + 0.45 would be a different foe; on one foe, 0.5 + 0.45:
    _hit(v, 0, 2, 4, 0.5, 0.6, False, False)  # slot a, move 3 on foe b: 50-60 %
    f = joint_ko_features(torch.from_numpy(obs))
    assert f[o(2, 4), o(3, 4)].tolist() == [1, 0, 1, 0, 0, 1]  # 0.8 < 1 <= 1.05: may fall, not sure
    assert torch.equal(f, joint_ko_features(torch.from_numpy(obs)[None, None])[0, 0])  # leading dims


def test_a_joint_ko_network_starts_as_the_network_without_it():
    obs, mask = _turn_with_both_slots_and_foes()
    torch.manual_seed(0)
    base = PolicyValueNet(dataclasses.replace(SMALL, joint_ko=False)).eval()
    with_ko = PolicyValueNet(SMALL).eval()
    missing, unexpected = with_ko.load_state_dict(base.state_dict(), strict=False)
    assert set(missing) == {"joint_ko.weight", "joint_ko.bias"} and not unexpected
    torch.testing.assert_close(_logits(with_ko, obs, mask), _logits(base, obs, mask))
    assert joint_ko_features(torch.from_numpy(obs)).sum() > 0  # the turn has features: the 0 start is what hides them


def test_a_feed_forward_core_reads_each_step_alone_packed_or_padded():
    """model.recurrent=false: a step's logits and value are those of the step alone (no
    state from earlier steps), with or without ``valid``, and the state passes through
    untouched; the GRU network's do depend on the earlier steps."""
    obs, mask, prev = recorded_steps(5, 3)
    valid = torch.tensor([[1, 1, 1], [1, 1, 1], [1, 0, 1], [1, 0, 0], [1, 0, 0]], dtype=torch.bool)
    torch.manual_seed(1)
    ff = PolicyValueNet(dataclasses.replace(SMALL, recurrent=False)).eval()
    torch.manual_seed(1)
    gru = PolicyValueNet(SMALL).eval()
    assert isinstance(gru.core, nn.GRU) and not isinstance(ff.core, nn.GRU)
    with torch.no_grad():
        h0 = ff.initial_state(3) + 0.5  # whatever it holds, the feed-forward core ignores it and hands it back
        lg, v, h = ff(obs, mask, prev, h0)
        lg_p, v_p, h_p = ff(obs, mask, prev, h0, valid=valid)
        torch.testing.assert_close(h, h0)
        torch.testing.assert_close(h_p, h0)
        torch.testing.assert_close(lg_p[valid], lg[valid])
        torch.testing.assert_close(v_p[valid], v[valid])
        for t in (2, 4):  # the step alone, from a zero state
            lg_t, v_t, _ = ff(obs[t : t + 1], mask[t : t + 1], prev[t : t + 1], ff.initial_state(3))
            torch.testing.assert_close(lg_t[0], lg[t])
            torch.testing.assert_close(v_t[0], v[t])
        g_all, gv_all, _ = gru(obs, mask, prev, gru.initial_state(3))
        g_t, gv_t, _ = gru(obs[4:5], mask[4:5], prev[4:5], gru.initial_state(3))
        assert not torch.allclose(gv_t[0], gv_all[4])


def test_files_from_before_model_recurrent_load_with_a_gru_core():
    from league.model.net import model_sizes

    assert model_sizes({"mon_dim": 64, "encoder_version": 6})["recurrent"] is True
    assert model_sizes({"recurrent": False, "encoder_version": 6})["recurrent"] is False
