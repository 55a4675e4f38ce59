"""PolicyServer's batching: one forward per event-loop tick, or per ``min_batch`` requests
(``sim.infer_batch``) with a wait limit; every request answered from a legal action."""

from __future__ import annotations

import asyncio

import pytest

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


def test_a_sampling_server_draws_in_proportion_to_its_policy():
    """Seeded: the figures are fixed, not drawn anew each run."""
    import torch

    from league.sim.policy import inverse_cdf

    g = torch.Generator().manual_seed(0)
    p = torch.tensor([[0.1, 0.0, 0.6, 0.3]]).repeat(40_000, 1)
    freq = torch.bincount(inverse_cdf(p, torch.rand(40_000, generator=g, dtype=torch.float64)), minlength=4) / 40_000
    assert freq[1] == 0 and torch.allclose(freq, p[0], atol=0.01), freq
