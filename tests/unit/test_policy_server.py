"""PolicyServer's batching: one forward per event-loop tick, or per ``min_batch`` requests
(``sim.infer_batch``) with a wait limit; every request answered from a legal action."""

from __future__ import annotations

import asyncio

import pytest
import torch

from league.model.net import ModelConfig, PolicyValueNet
from league.sim.policy import PolicyServer
from tests.recorded import recorded_steps

SMALL = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32, action_dim=16)


def _requests(n: int):
    """``n`` <= 8 decisions of recorded battles (previews and turns), each its own key."""
    obs, mask, prev = recorded_steps(2, 4)
    return [
        (f"b{i}", obs[i % 2, i // 2].numpy(), mask[i % 2, i // 2].numpy(), bool(prev[i % 2, i // 2])) for i in range(n)
    ]


async def _ask(server: PolicyServer, reqs, gap_s: float = 0.0):
    futs = []
    for r in reqs:
        futs.append(server.act(*r))
        if gap_s:
            await asyncio.sleep(gap_s)
    return await asyncio.gather(*futs)


def test_one_forward_per_tick_by_default():
    server = PolicyServer(PolicyValueNet(SMALL), "p", seed=0)
    reqs = _requests(5)
    out = asyncio.run(_ask(server, reqs))
    assert (server.forwards, server.requests) == (1, 5)
    for (_, _, mask, _), (a, logp) in zip(reqs, out):
        assert mask[a] and logp <= 0.0


def test_min_batch_gathers_requests_across_ticks():
    server = PolicyServer(PolicyValueNet(SMALL), "p", seed=0, min_batch=4, max_wait_s=10.0)
    asyncio.run(_ask(server, _requests(4), gap_s=0.001))  # four ticks apart, one forward
    assert (server.forwards, server.requests) == (1, 4)


def test_min_batch_flushes_after_the_wait_limit():
    server = PolicyServer(PolicyValueNet(SMALL), "p", seed=0, min_batch=8, max_wait_s=0.01)

    async def go():
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        out = await _ask(server, _requests(3))  # never 8: the timer answers them
        return out, loop.time() - t0

    out, waited = asyncio.run(go())
    assert len(out) == 3 and (server.forwards, server.requests) == (1, 3)
    assert waited >= 0.01


def test_batching_settings_are_checked():
    with pytest.raises(ValueError, match="min_batch"):
        PolicyServer(PolicyValueNet(SMALL), "p", min_batch=0)


def test_a_failing_forward_fails_its_decisions_and_counts_them_it_does_not_hang_them():
    from league.sim.policy import ForwardFailed

    server = PolicyServer(PolicyValueNet(SMALL), "p", seed=0)
    good = server.forward

    def broken(*a, **k):
        raise RuntimeError("out of memory (injected)")

    async def go():
        server.forward = broken
        failed = await asyncio.gather(*(server.act(*r) for r in _requests(3)), return_exceptions=True)
        server.forward = good  # the next batch is answered again
        return failed, await _ask(server, _requests(2))

    failed, later = asyncio.run(asyncio.wait_for(go(), timeout=60))
    assert all(isinstance(f, ForwardFailed) and "out of memory (injected)" in str(f) for f in failed)
    assert server.failed == 3 and (server.forwards, server.requests) == (1, 2) and len(later) == 2


def test_nan_weights_fail_their_decisions_instead_of_drawing_an_action():
    """A diverged learner's weights (NaN) once drew action 2,024 for a 90-wide team preview,
    crashing the player; now the batch fails as a forward does (counted, the battle goes
    on), and the same network with its weights mended answers again."""
    import torch

    from league.sim.policy import ForwardFailed

    net = PolicyValueNet(SMALL)
    server = PolicyServer(net, "p", seed=0)
    weight = next(p for n, p in net.named_parameters() if p.dim() == 2)
    kept = weight.detach().clone()
    with torch.no_grad():
        weight.fill_(float("nan"))

    async def go():
        failed = await asyncio.gather(*(server.act(*r) for r in _requests(3)), return_exceptions=True)
        with torch.no_grad():
            weight.copy_(kept)
        return failed, await _ask(server, _requests(2))

    failed, later = asyncio.run(asyncio.wait_for(go(), timeout=60))
    assert all(isinstance(f, ForwardFailed) and "not numbers" in str(f) for f in failed), failed
    assert server.failed == 3 and len(later) == 2


def test_inverse_cdf_draws_by_the_cumulative_sum_and_never_a_masked_action():
    import torch

    from league.sim.policy import inverse_cdf

    # cumulative sums 0, .2, .2, .7, 1.0: u below .2 is action 1, [.2, .7) action 3, above 4;
    # actions 0 and 2 (probability 0) are never drawn, u rounded to 1 is the last possible
    p = torch.tensor([[0.0, 0.2, 0.0, 0.5, 0.3]]).repeat(8, 1)
    u = torch.tensor([0.0, 0.1, 0.19999, 0.2, 0.5, 0.69999, 0.7, 1.0], dtype=torch.float64)
    assert inverse_cdf(p, u).tolist() == [1, 1, 1, 3, 3, 3, 4, 4]
    # masked actions at the end: u rounded up to the total stays on the last legal one
    q = torch.tensor([[0.25, 0.75, 0.0, 0.0]])
    assert inverse_cdf(q, torch.tensor([1.0], dtype=torch.float64)).tolist() == [1]
    assert inverse_cdf(q, torch.tensor([0.2499], dtype=torch.float64)).tolist() == [0]
    # an unnormalised row (a softmax's float32 total off 1) is scaled by its own total
    r = torch.tensor([[0.0, 2.0, 2.0]])
    assert inverse_cdf(r.repeat(2, 1), torch.tensor([0.49, 0.51], dtype=torch.float64)).tolist() == [1, 2]


def test_inverse_cdf_stops_at_the_last_action_the_cumulative_sum_reaches_on_sparse_rows():
    """The last possible action found by a binary search of the cumulative sum is the
    count of its entries below the row's total (the definition), on seeded sparse rows
    with zero tails, and a draw at u = 1 never passes it."""
    import torch

    from league.sim.policy import inverse_cdf

    g = torch.Generator().manual_seed(1)
    for _ in range(20):
        p = torch.rand(64, 2025, generator=g) * (torch.rand(64, 2025, generator=g) < 0.05)
        p[:, 0] += 1e-3
        p[torch.rand(64, generator=g) < 0.3, -50:] = 0.0
        c = p.double().cumsum(-1)
        last = (c < c[:, -1:]).sum(-1)
        drawn = inverse_cdf(p, torch.ones(64, dtype=torch.float64))
        assert torch.equal(drawn, last) and bool(p.gather(-1, drawn[:, None]).gt(0).all())


def test_a_sampling_server_draws_in_proportion_to_its_policy():
    """Seeded: the figures are fixed, not drawn anew each run."""
    import torch

    from league.sim.policy import inverse_cdf

    g = torch.Generator().manual_seed(0)
    p = torch.tensor([[0.1, 0.0, 0.6, 0.3]]).repeat(40_000, 1)
    freq = torch.bincount(inverse_cdf(p, torch.rand(40_000, generator=g, dtype=torch.float64)), minlength=4) / 40_000
    assert freq[1] == 0 and torch.allclose(freq, p[0], atol=0.01), freq


def test_each_battle_keeps_its_own_recurrent_state_however_its_decisions_are_batched():
    """Two battles' decisions interleaved, in batches of one and two, and a battle forgotten
    and begun again under its key: every behaviour log-prob is the one the network gives
    the battle's own sequence in one forward from the initial state (what the learner
    recomputes), so no battle reads another's state or a stale one."""
    torch.manual_seed(0)
    net = PolicyValueNet(SMALL)
    with torch.no_grad():  # an untrained net's policy barely reads its state (~2e-5): make it
        for name, p in net.named_parameters():
            p.mul_(6.0 if name.startswith("core") else 1.5)
    obs, mask, prev = recorded_steps(3, 2)  # [T=3, B=2]
    with torch.no_grad():  # how much the state moves a log-prob here: 25x the tolerance below
        late, _, _ = net(obs[1:], mask[1:], prev[1:], net.initial_state(2))
        moved = torch.log_softmax(late[0], -1) - torch.log_softmax(net(obs, mask, prev, net.initial_state(2))[0][1], -1)
    assert float(moved.abs().where(mask[1], torch.tensor(0.0)).max()) > 5e-4
    with torch.no_grad():
        logits, _, _ = net(obs, mask, prev, net.initial_state(2))
    want = torch.log_softmax(logits, -1)  # [3, 2, A]
    server = PolicyServer(net, "p", greedy=True)

    def req(key: str, t: int, b: int):
        return (key, obs[t, b].numpy(), mask[t, b].numpy(), bool(prev[t, b]))

    async def play():
        got = {}
        # battle 0's first decision alone, then both battles' decisions in one batch, ...
        ((a, lp),) = await _ask(server, [req("x", 0, 0)])
        got[(0, 0)] = (a, lp)
        out = await _ask(server, [req("y", 0, 1), req("x", 1, 0)])
        got[(0, 1)], got[(1, 0)] = out
        out = await _ask(server, [req("x", 2, 0), req("y", 1, 1)])
        got[(2, 0)], got[(1, 1)] = out
        (got[(2, 1)],) = await _ask(server, [req("y", 2, 1)])
        # "x" ends; a new battle under the same key starts from the initial state again
        server.forget("x")
        out = await _ask(server, [req("x", 0, 1), req("z", 0, 0)])
        return got, out

    got, again = asyncio.run(play())
    for (t, b), (a, lp) in got.items():
        assert a == int(want[t, b].argmax())
        assert lp == pytest.approx(float(want[t, b, a]), abs=2e-5), (t, b)
    assert again[0][1] == pytest.approx(float(want[0, 1, again[0][0]]), abs=2e-5)
    assert again[1][1] == pytest.approx(float(want[0, 0, again[1][0]]), abs=2e-5)


def test_act_top_names_the_likeliest_legal_actions_and_moves_the_state_as_act_does():
    """A search player's request: the k likeliest legal actions in order with their
    log-probs (the network's own, by a forward over the battle's sequence), never a masked
    one even when fewer than k are legal; and the battle's recurrent state moves on as a
    plain decision moves it (the next decision's log-probs are the sequence's)."""
    torch.manual_seed(0)
    net = PolicyValueNet(SMALL)
    with torch.no_grad():
        for name, p in net.named_parameters():
            p.mul_(6.0 if name.startswith("core") else 1.5)
    obs, mask, prev = recorded_steps(2, 1)  # [T=2, B=1]
    with torch.no_grad():
        logits, _, _ = net(obs, mask, prev, net.initial_state(1))
    want = torch.log_softmax(logits, -1)[:, 0]  # [2, A]
    server = PolicyServer(net, "p", greedy=True)
    few = mask[0, 0].clone()
    legal = few.nonzero().flatten()
    few[legal[3:]] = False  # three legal actions only

    async def play():
        top = await server.act_top("x", obs[0, 0].numpy(), mask[0, 0].numpy(), bool(prev[0, 0]), 5)
        nxt = await server.act("x", obs[1, 0].numpy(), mask[1, 0].numpy(), bool(prev[1, 0]))
        short = await server.act_top("y", obs[0, 0].numpy(), few.numpy(), bool(prev[0, 0]), 5)
        return top, nxt, short

    (acts, lps), (a1, lp1), (short, _) = asyncio.run(play())
    order = want[0].masked_fill(~mask[0, 0], -torch.inf).argsort(descending=True)[:5].tolist()
    assert acts == order and all(mask[0, 0, a] for a in acts)
    assert lps == pytest.approx([float(want[0, a]) for a in acts], abs=2e-5)
    assert lps == sorted(lps, reverse=True)
    assert a1 == int(want[1].argmax()) and lp1 == pytest.approx(float(want[1, a1]), abs=2e-5)
    assert len(short) == 3 and set(short) == set(legal[:3].tolist())
    with pytest.raises(ValueError, match="k must be"):
        server.act_top("z", obs[0, 0].numpy(), mask[0, 0].numpy(), False, 0)
