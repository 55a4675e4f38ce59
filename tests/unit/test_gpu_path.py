"""The GPU path's pieces run on CPU: the learner's AMP step (bfloat16 autocast on CPU;
the network and loss under float16 / bfloat16 autocast are tests/unit/test_model.py's),
metrics read without a sync, the warm-up, the acting server's in-place weights and
compiled forward; and, where CUDA exists, a learner step under AMP and GPU inference
against CPU (skipped elsewhere, with the reason)."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
import torch

from league.battle.actions import JOINT_ACTIONS
from league.learn.learner import Learner, LearnerConfig, StepMetrics
from league.model.net import ModelConfig, PolicyValueNet
from league.sim.policy import PolicyServer
from league.transport.data import Batch
from tests.recorded import recorded_steps

SMALL = ModelConfig(mon_dim=16, torso_dim=32, core_dim=32, action_dim=16)
CUDA = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device (none on this machine)")


def _batch(T: int = 4, B: int = 3, seed: int = 0) -> Batch:
    """Recorded decisions, sampled legal actions, the last column one step shorter (padding)."""
    g = torch.Generator().manual_seed(seed)
    obs, mask, is_preview = recorded_steps(T, B)
    actions = torch.stack(
        [torch.multinomial(m.float(), 1, generator=g).squeeze(-1) for m in mask.view(-1, JOINT_ACTIONS)]
    ).view(T, B)
    valid = torch.ones(T, B, dtype=torch.bool)
    valid[-1, -1] = False
    reward = torch.zeros(T, B)
    reward[-1, :-1] = torch.tensor([1.0, -1.0])[: B - 1]
    reward[-2, -1] = 1.0
    return Batch(obs, mask, is_preview, actions, torch.full((T, B), -3.0), reward, valid)


def test_learner_step_under_bfloat16_autocast():
    # the learner's AMP path (no GradScaler for bfloat16) run on CPU: finite, and it learns
    L = Learner(LearnerConfig(), SMALL, seed=1)
    L.amp_dtype, L.use_amp = torch.bfloat16, True
    before = [p.detach().clone() for p in L.net.parameters()]
    m = L.step(_batch())
    assert all(v == v and abs(v) < float("inf") for v in m.values() if isinstance(v, float))
    assert any(not torch.equal(a, p) for a, p in zip(before, L.net.parameters()))
    assert m["samples"] == 11


def test_step_async_gives_the_metrics_step_gives():
    a, b = Learner(LearnerConfig(), SMALL, seed=2), Learner(LearnerConfig(), SMALL, seed=2)
    pending = b.step_async(_batch())
    assert isinstance(pending, StepMetrics)
    assert pending.get() == a.step(_batch())
    for pa, pb in zip(a.net.parameters(), b.net.parameters()):
        assert torch.equal(pa, pb)


def test_warm_up_changes_no_state():
    a, b = Learner(LearnerConfig(), SMALL, seed=4), Learner(LearnerConfig(), SMALL, seed=4)
    b.warm_up(_batch(seed=9))
    assert b.steps == 0 and all(p.grad is None for p in b.net.parameters())
    assert a.step(_batch()) == b.step(_batch())


def test_policy_server_loads_weights_in_place():
    server = PolicyServer(PolicyValueNet(SMALL), "p")
    ptrs = [p.data_ptr() for p in server.net.parameters()]
    flat = torch.nn.utils.parameters_to_vector(PolicyValueNet(SMALL).parameters()).detach()
    server.load_weights(flat, 7)
    assert [p.data_ptr() for p in server.net.parameters()] == ptrs  # a compiled graph keeps its inputs
    assert torch.equal(torch.nn.utils.parameters_to_vector(server.net.parameters()), flat) and server.version == 7


def _requests(n: int = 5):
    obs, mask, prev = recorded_steps(2, 4)
    return [
        (f"b{i}", obs[i % 2, i // 2].numpy(), mask[i % 2, i // 2].numpy(), bool(prev[i % 2, i // 2])) for i in range(n)
    ]


async def _ask(server: PolicyServer, reqs):
    return await asyncio.gather(*[server.act(*r) for r in reqs])


def _greedy_pair(device_a: str, device_b: str, compile_b: bool = False):
    torch.manual_seed(0)
    net = PolicyValueNet(SMALL)
    a = PolicyServer(net, "a", greedy=True, device=device_a)
    twin = PolicyValueNet(SMALL)
    twin.load_state_dict(net.state_dict())
    b = PolicyServer(twin, "b", greedy=True, device=device_b, compile=compile_b)
    return a, b


def test_compiled_acting_forward_answers_as_the_eager_one():
    # sim.compile: torch.compile (dynamic shapes), warmed up at construction; two rounds so
    # the hidden states carried from the first round feed the second
    eager, compiled = _greedy_pair("cpu", "cpu", compile_b=True)
    reqs = _requests()
    for _ in range(2):
        out_e, out_c = asyncio.run(_ask(eager, reqs)), asyncio.run(_ask(compiled, reqs))
        assert [x for x, _ in out_e] == [x for x, _ in out_c]
        assert [lp for _, lp in out_e] == pytest.approx([lp for _, lp in out_c], abs=1e-4)


def test_the_compiled_acting_forward_traces_its_gru_whole():
    # dynamo breaks the graph at nn.GRU unless allow_rnn: the acting forward then ran as two
    # compiled graphs with the GRU eager between them (0.15-0.45 ms more a forward of 24)
    from torch._dynamo.utils import counters

    torch._dynamo.reset()  # (graphs compiled by earlier tests would be reused, not counted)
    counters.clear()
    _greedy_pair("cpu", "cpu", compile_b=True)
    assert not counters["graph_break"], list(counters["graph_break"])
    assert counters["stats"]["unique_graphs"] == 2  # the warm-up's: batch 1 (specialised) and any batch


def test_a_policy_whose_compilation_fails_acts_eagerly(monkeypatch, caplog):
    # sim.compile on a machine where torch.compile cannot build (no C compiler, say): one
    # warning, the eager forward, the same answers as an eager policy's
    def broken(net, **kw):
        def fwd(*a, **k):
            raise RuntimeError("InductorError: no working C++ compiler found\n(details)")

        return fwd

    monkeypatch.setattr(torch, "compile", broken)
    with caplog.at_level("WARNING", logger="league.sim.policy"):
        eager, fell_back = _greedy_pair("cpu", "cpu", compile_b=True)
    assert not fell_back.compiled and fell_back.forward is fell_back.net
    [warning] = [r.getMessage() for r in caplog.records]
    assert warning == (
        "b: sim.compile: torch.compile failed (RuntimeError: InductorError: no working C++ compiler found); "
        "this policy acts eagerly"
    )
    reqs = _requests()
    assert asyncio.run(_ask(eager, reqs)) == asyncio.run(_ask(fell_back, reqs))


# ------------------------------------------------------------------ only where CUDA exists


@CUDA
@pytest.mark.parametrize("amp_dtype", ["float16", "bfloat16"])
def test_learner_step_under_amp_on_cuda(amp_dtype):
    if amp_dtype == "bfloat16" and not torch.cuda.is_bf16_supported():
        pytest.skip("this GPU has no bfloat16")
    cfg = dataclasses.replace(LearnerConfig(), amp=True, amp_dtype=amp_dtype)
    L = Learner(cfg, SMALL, device="cuda", seed=1)
    assert L.amp_dtype == getattr(torch, amp_dtype) and L.scaler.is_enabled() == (amp_dtype == "float16")
    before = [p.detach().clone() for p in L.net.parameters()]
    figures = [L.step_async(_batch()).get() for _ in range(6)]
    for m in figures:  # every figure reported is finite: an overflowed update's grad figures are left out
        assert all(v == v and abs(v) < float("inf") for v in m.values() if isinstance(v, float)), m
        assert ("grad_norm" in m) == (m["amp/overflow"] == 0.0)
    # float16 may skip a first update or two while GradScaler finds its scale; bfloat16 never
    assert sum(m["amp/overflow"] for m in figures) <= (2 if amp_dtype == "float16" else 0)
    assert any(not torch.equal(a, p) for a, p in zip(before, L.net.parameters()))


@CUDA
def test_gpu_inference_gives_the_cpu_distribution():
    torch.manual_seed(0)
    net = PolicyValueNet(SMALL)
    b = _batch()
    h = net.initial_state(3)
    with torch.no_grad():
        cpu_logits, _, _ = net(b.obs, b.mask, b.is_preview, h)
        gpu = PolicyValueNet(SMALL).cuda()
        gpu.load_state_dict(net.state_dict())
        gpu_logits, _, _ = gpu(b.obs.cuda(), b.mask.cuda(), b.is_preview.cuda(), h.cuda())
    p_cpu, p_gpu = torch.softmax(cpu_logits, -1), torch.softmax(gpu_logits.cpu(), -1)
    assert (p_gpu[~b.mask] == 0).all()
    assert torch.allclose(p_cpu, p_gpu, atol=1e-4)
    cpu_server, gpu_server = _greedy_pair("cpu", "cuda")
    out_c, out_g = asyncio.run(_ask(cpu_server, _requests())), asyncio.run(_ask(gpu_server, _requests()))
    assert [x for x, _ in out_c] == [x for x, _ in out_g]
