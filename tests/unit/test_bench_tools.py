"""tools.bench learner / infer: they run on the present device and report what they say
(figures are never asserted: speed is measured, not tested)."""

from __future__ import annotations

import os

import numpy as np
import pytest
import torch

from tools.bench import _synthetic_batch, bench_infer, bench_learner
from tools.bench import cpu_to_node as bench_cpu_to_node


def test_synthetic_batches_are_right_padded_with_a_terminal_reward():
    b, n = _synthetic_batch(np.random.default_rng(1), 8)
    lengths = b.valid.sum(0)
    assert int(lengths.sum()) == n and int(lengths.max()) == b.valid.shape[0]
    assert not (b.valid[1:] & ~b.valid[:-1]).any()  # a prefix of each column
    assert b.mask.any(-1).all() and b.is_preview[0].all() and not b.mask[0, :, 90:].any()
    last = (lengths - 1).long()
    assert (b.reward.abs().sum(0) == 1).all() and (b.reward[last, range(8)].abs() == 1).all()
    # a turn's legal joint actions are the pairs of each slot's 1-16 legal orders; the
    # taken action is legal
    joint = b.mask[1:].view(-1, 45, 45)
    slot0, slot1 = joint.any(2), joint.any(1)
    assert torch.equal(joint, slot0[:, :, None] & slot1[:, None, :])
    assert slot0.sum(-1).min() >= 1 and slot0.sum(-1).max() <= 16 and slot1.sum(-1).max() <= 16
    assert b.mask.gather(-1, b.actions.unsqueeze(-1)).all()


def test_bench_learner_and_infer_report_each_setting():
    out = bench_learner(updates=2, batch_size=2, device="cpu")
    assert out["device"] == "cpu" and set(out["runs"]) == {"fp32_alpha_lt_1", "fp32_alpha_1", "fp32_eta_0"}
    for r in out["runs"].values():
        assert r["cpu_ms_per_update"] > 0 and r["decisions_per_s"] > r["trajectories_per_s"] > 0
    inf = bench_infer([1, 4], device="cpu", rounds=2)
    assert [r["batch"] for r in inf["rows"]] == [1, 4] and all(r["ms_per_forward"] > 0 for r in inf["rows"])


@pytest.mark.parametrize(
    "ys, n, want",
    [
        ([1.0, 2.0, 3.0, 4.0], 2, [1.0, 1.5, 2.5, 3.5]),  # the first n - 1 points: the mean so far
        ([1.0, 2.0, 3.0], 1, [1.0, 2.0, 3.0]),
        ([1.0, 2.0], 5, [1.0, 2.0]),  # fewer points than the window: unchanged
        ([0.0, 3.0, 6.0, 0.0], 3, [0.0, 1.5, 3.0, 3.0]),
    ],
)
def test_plot_run_running_mean_table(ys, n, want):
    from tools.plot_run import _running_mean

    assert _running_mean(ys, n) == pytest.approx(want)


def test_bench_ab_alternates_the_order_and_divides_b_by_a(monkeypatch):
    """The orchestration only (each training run is a real ``league.run`` of tens of
    seconds, timed, never asserted): A and B alternate which runs first, every run gets
    its own overrides, and the ratio is B's battles/s over A's, its median over rounds."""
    import tools.bench as bench

    calls = []
    rates = iter([10.0, 12.0, 15.0, 10.0, 8.0, 12.0])  # a, b | b, a | a, b

    def fake_train(seconds, workers, concurrency, teams_dir, backend, overrides=(), battle_format=None):
        calls.append(overrides)
        return {"battles_per_s": next(rates), "updates_per_s": 1.0}

    monkeypatch.setattr(bench, "bench_train", fake_train)
    out = bench.bench_ab(5, 1, 4, None, ["x=1"], ["sim.compile=true"], rounds=3)
    assert calls == [("x=1",), ("sim.compile=true",), ("sim.compile=true",), ("x=1",), ("x=1",), ("sim.compile=true",)]
    assert [r["first"] for r in out["rounds"]] == ["a", "b", "a"]
    assert [r["b_to_a_battles_per_s"] for r in out["rounds"]] == [1.2, 1.5, 1.5]
    assert out["b_to_a_battles_per_s_median"] == 1.5


def test_median_rounds_hand_table():
    """Medians key by key (nested too), the lower median for integers, a ratio's range,
    a key a round lacks left out of its median."""
    from tools.bench import median_rounds

    def row(ceiling, ratio, updates, learner, gc=None):
        cpu = {"learner": learner} if gc is None else {"learner": learner, "python_simulator_gc": gc}
        return {
            "ceiling_battles_per_s": ceiling,
            "stream_train_to_ceiling": ratio,
            "stream_train_updates": updates,
            "cpu_s_per_battle": {"stream_train": cpu},
        }

    rows = [  # ceiling, training's ratio, updates, learner s a battle, GC s a battle (two rounds lack it)
        row(40.0, 0.5, 10, 0.02, 0.001),
        row(50.0, 0.4, 13, 0.01),
        row(45.0, 0.3, 11, 0.04, 0.003),
        row(47.0, 0.45, 12, 0.03),
    ]
    assert median_rounds(rows) == {
        "ceiling_battles_per_s": 46.0,  # (45 + 47) / 2
        "stream_train_to_ceiling": 0.425,  # (0.4 + 0.45) / 2
        "stream_train_to_ceiling_range": [0.3, 0.5],
        "stream_train_updates": 11,  # the lower of 11 and 12
        "cpu_s_per_battle": {"stream_train": {"learner": 0.025, "python_simulator_gc": 0.002}},
    }


def test_bench_backends_rounds_each_against_its_own_ceiling(monkeypatch):
    """The orchestration only (the measurements are real battles, timed, never
    asserted): every round measures the ceiling, then random play, then training, on the
    backends asked for only; each round's ratios are to its own ceiling; the top-level
    figures are the medians."""
    import tools.bench as bench

    calls = []
    ceilings = iter([40.0, 50.0, 60.0])

    def fake_ceiling(seconds, procs, teams, battle_format=None):
        calls.append("ceiling")
        return {"battles_per_s": next(ceilings), "turns_per_battle": 10.0, "cpu_s_per_battle": {}}

    def fake_random(seconds, servers, concurrency, teams, backend="server", battle_format=None):
        calls.append(f"random:{backend}")
        return {"battles_per_s": 30.0, "turns_per_battle": 10.0, "cpu_s_per_battle": {"python_battles": 0.01}}

    def fake_train(seconds, workers, concurrency, teams_dir, backend, overrides=(), battle_format=None):
        calls.append(f"train:{backend}")
        return {"battles_per_s": 20.0, "updates": 5, "showdown_errors": 0, "cpu_s_per_battle": {"learner": 0.02}}

    monkeypatch.setattr(bench, "bench_ceiling", fake_ceiling)
    monkeypatch.setattr(bench, "bench_random", fake_random)
    monkeypatch.setattr(bench, "bench_train", fake_train)
    out = bench.bench_backends(1, 2, 4, [], None, 1, backends=["stream"], rounds=3)
    assert calls == ["ceiling", "random:stream", "train:stream"] * 3
    assert [r["stream_train_to_ceiling"] for r in out["rounds"]] == [0.5, 0.4, 0.333]
    assert out["stream_train_to_ceiling"] == 0.4 and out["stream_train_to_ceiling_range"] == [0.333, 0.5]
    assert out["stream_random_to_ceiling"] == 0.6  # 30 / 50, the median round's
    assert not any(k.startswith("server") for k in out)


def test_cpu_to_node_is_each_python_role_as_a_share_of_node_s_cpu_in_the_same_measurement():
    cpu = {
        "ceiling": {"node_simulation": 0.025},
        "stream_random": {"node_simulation": 0.020, "python_battles": 0.005, "python_decisions": 0.001},
        "stream_train": {"node_simulation": 0.028, "python_simulator": 0.015, "learner": 0.007, "python_main": 0.001},
        "server_train": {"learner": 0.01},  # no Node figure: left out
    }
    assert bench_cpu_to_node(cpu) == {
        "stream_random": {"python_battles": 0.25},
        "stream_train": {"python_simulator": 0.536, "learner": 0.25},
    }


def test_bench_sweep_runs_every_shard_count_and_recommends_the_fed_fastest(monkeypatch):
    """The orchestration only: each combination gets its overrides (a row of several
    shards its shard count and a slot per battle in flight), and the recommendation is
    the most learner samples/s among rows whose learner is fed (busy >= 0.5)."""
    import tools.bench as bench

    calls = []
    # (updates/s, learner busy) per run, in product order: shards 1 then 6; batch 16 then 32
    figures = iter([(3.0, 0.4), (2.0, 0.6), (12.0, 0.8), (4.0, 0.3)])

    def fake_train(seconds, workers, concurrency, teams_dir, backend, overrides=(), battle_format=None):
        calls.append((workers, concurrency, overrides))
        u, busy = next(figures)
        return {
            "battles_per_s": 10.0,
            "updates_per_s": u,
            "learner_busy": busy,
            "infer_batch_mean": 8.0,
            "showdown_errors": 0,
        }

    monkeypatch.setattr(bench, "bench_train", fake_train)
    out = bench.bench_sweep(5, [1], [24], [16, 32], None, "stream", shards=[1, 6])
    assert calls == [
        (1, 24, ("learner.batch_size=16", "sim.infer_batch=1")),
        (1, 24, ("learner.batch_size=32", "sim.infer_batch=1")),
        (1, 24, ("learner.batch_size=16", "sim.infer_batch=1", "sim.shards=6", "sim.n_slots=144")),
        (1, 24, ("learner.batch_size=32", "sim.infer_batch=1", "sim.shards=6", "sim.n_slots=144")),
    ]
    # samples/s: 48 (busy 0.4: starved), 64, 192, 128 (busy 0.3: starved) -> 6 shards, batch 16
    assert [r["samples_per_s"] for r in out["rows"]] == [48.0, 64.0, 192.0, 128.0]
    assert out["recommended"] == {"shards": 6, "workers": 1, "concurrency": 24, "infer_batch": 1, "batch_size": 16}
    assert out["recommended_samples_per_s"] == 192.0


def test_cpu_by_role_adds_up_every_process_of_a_role():
    """A role of several processes (the simulator's shards) is the sum of their CPU: here
    this process and a child that burns 0.3 s of CPU and then waits (stopped by events:
    its line "ready", then its stdin closed)."""
    import subprocess
    import sys

    import psutil

    from tools.bench import cpu_by_role

    code = "import sys, time\nwhile time.process_time() < 0.3: pass\nprint('ready', flush=True); sys.stdin.read()"
    child = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        t = psutil.Process(child.pid).cpu_times()
        child_s = t.user + t.system
        assert child_s >= 0.2  # psutil's counters tick by 10 ms: not exactly process_time's 0.3
        alone = cpu_by_role({"sim": os.getpid()})["sim"]
        both = cpu_by_role({"sim": [os.getpid(), child.pid]})["sim"]
        assert both >= alone + child_s - 1e-6
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(timeout=60)


def test_the_simulators_cpu_split_counts_from_its_battles_start_not_its_startup():
    """tools.bench splits a window's simulator CPU by the fractions the simulator reports;
    the tens of CPU seconds of its imports and its acting forward's compilation come
    before its battles and must not dilute them: the counters restart when battles begin."""
    import time

    from league.sim.simulator import SimConfig, Simulator

    sim = Simulator(SimConfig(), None, None, [], lambda t: True)
    t0 = time.thread_time()
    while time.thread_time() - t0 < 0.3:  # startup's CPU
        pass
    before = sim.cpu()
    assert before["process_s"] >= 0.25
    sim.begin_cpu_window()  # what Simulator.run does first
    after = sim.cpu()
    assert 0.0 <= after["process_s"] < 0.1 and after["process_s"] < before["process_s"] - 0.2
    assert set(after) == {"process_s", "encode_s", "infer_s", "gc_s"}
