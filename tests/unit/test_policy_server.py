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
