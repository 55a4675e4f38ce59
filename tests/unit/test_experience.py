"""Shared-memory trajectory slots -> time-major padded batches (pure tensor logic)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from league.battle.actions import JOINT_ACTIONS
from league.battle.obs import OBS_DIM
from league.sim.policy import pad_preview_mask
from league.transport.data import Trajectory
from league.transport.experience import SharedExperience, agent_key
from league.transport.messages import SlotMessage


def _traj(T: int, reward: float, fill: float) -> Trajectory:
    t = Trajectory("main", version=3, reward=reward)
    for i in range(T):
        m = np.zeros(JOINT_ACTIONS, bool)
        m[i] = m[i + 1] = True
        t.obs.append(np.full(OBS_DIM, fill + i, np.float32))
        t.mask.append(m)
        t.is_preview.append(i == 0)
        t.actions.append(i + 1)
        t.logp.append(-0.5)
    return t


def test_batch_is_time_major_padded_with_terminal_reward():
    exp = SharedExperience(n_slots=4, t_max=8)
    exp.write(2, _traj(3, 1.0, 10.0))
    exp.write(0, _traj(5, -1.0, 20.0))
    b = exp.batch([2, 0])
    assert b.obs.shape == (5, 2, OBS_DIM) and b.mask.shape == (5, 2, JOINT_ACTIONS)
    assert b.valid[:, 0].tolist() == [True, True, True, False, False] and b.valid[:, 1].all()
    assert b.reward[:, 0].tolist() == [0, 0, 1.0, 0, 0] and b.reward[:, 1].tolist() == [0, 0, 0, 0, -1.0]
    assert b.obs[2, 0, 0] == 12.0 and b.obs[4, 1, 0] == 24.0
    assert b.actions[:, 0].tolist() == [1, 2, 3, 0, 0]
    assert b.is_preview[0].all() and not b.is_preview[1:].any()
    # every step, padding included, has at least one legal action (finite log-softmax)
    assert b.mask.any(-1).all()
    assert b.mask[3, 0].sum() == 1 and b.mask[3, 0, 0]


def test_too_long_trajectory_is_refused_and_messages_round_trip():
    exp = SharedExperience(n_slots=1, t_max=4)
    try:
        exp.write(0, _traj(5, 1.0, 0.0))
    except ValueError as e:
        assert "t_max" in str(e)
    else:
        raise AssertionError("expected ValueError")
    m = SlotMessage(1, "main", 7, 12, -1.0, "self")
    assert SlotMessage.from_wire(m.to_wire()) == m


def test_preview_mask_padding():
    m = np.zeros(90, bool)
    m[[0, 89]] = True
    p = pad_preview_mask(m)
    assert p.shape == (JOINT_ACTIONS,) and p.sum() == 2 and p[89] and not p[90:].any()
    assert torch.from_numpy(p).dtype == torch.bool


def test_slot_states_let_a_restarted_learner_pick_up_filled_slots():
    from league.transport.experience import FILLED, FREE, WRITING

    exp = SharedExperience(n_slots=4, t_max=8)
    assert exp.filled() == [] and exp.reclaim_writing() == []
    exp.write(1, _traj(3, 1.0, 0.0))
    exp.write(3, _traj(2, -1.0, 0.0))
    assert exp.filled() == [1, 3] and exp.is_filled(1) and not exp.is_filled(0)
    assert int(exp.version[1]) == 3  # the behaviour version travels with the slot
    exp.release([1])
    assert exp.filled() == [3] and int(exp.state[1]) == FREE
    exp.state[2] = WRITING  # a simulator died while writing slot 2
    assert exp.reclaim_writing() == [2] and int(exp.state[2]) == FREE and int(exp.state[3]) == FILLED
    try:
        exp.write(0, _traj(9, 1.0, 0.0))  # refused before the slot changes state
    except ValueError:
        pass
    assert int(exp.state[0]) == FREE and exp.filled() == [3] and FILLED == 2


def _write_in_child(exp: SharedExperience, slot: int) -> None:
    exp.write(slot, _traj(2, -1.0, 5.0))


def test_a_process_given_the_slots_writes_where_the_learner_reads():
    # the writes go through numpy views of the shared tensors: made where they are first
    # used, never pickled (a pickled view would be a copy, and the child's writes lost)
    import multiprocessing as mp

    exp = SharedExperience(n_slots=2, t_max=4)
    exp.write(0, _traj(3, 1.0, 0.0))  # this process's views exist before the child gets it
    child = mp.get_context("spawn").Process(target=_write_in_child, args=(exp, 1))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    assert exp.filled() == [0, 1]
    b = exp.batch([1])
    assert b.obs[:, 0, 0].tolist() == [5.0, 6.0] and b.reward[:, 0].tolist() == [0.0, -1.0]


def test_battle_keys_and_step_order_reach_the_batch():
    exp = SharedExperience(n_slots=2, t_max=8)
    a, b = _traj(3, 1.0, 0.0), _traj(2, -1.0, 0.0)
    a.battle, a.order, a.group = 77, [0, 8, 9], 5
    b.battle, b.order, b.group = 77, [0, 8], 6
    exp.write(0, a)
    exp.write(1, b)
    batch = exp.batch([1, 0])
    assert batch.battle.tolist() == [77, 77]
    assert batch.group is not None and batch.group.tolist() == [6, 5]  # each trajectory's team pair
    assert batch.order.tolist() == [[0, 0], [8, 8], [0, 9]]  # padding 0
    m = SlotMessage(1, "main", 7, 12, -1.0, "self", 77)
    assert SlotMessage.from_wire(m.to_wire()) == m


def test_take_batch_brings_the_self_play_partner_along():
    from league.learn.learner_proc import take_batch

    ready = [(0, 1, 5), (1, 1, 0), (2, 1, 6), (3, 1, 6), (4, 1, 5), (5, 1, 9)]
    assert take_batch(ready, 2, pair=False) == (ready[:2], ready[2:])
    take, rest = take_batch(ready, 2, pair=True)  # slot 0's partner (key 5) is slot 4
    assert take == [(0, 1, 5), (1, 1, 0), (4, 1, 5)] and rest == [(2, 1, 6), (3, 1, 6), (5, 1, 9)]
    take, rest = take_batch(ready[2:], 3, pair=True)  # pair 2-3 inside; 5's partner is not there
    assert take == [(2, 1, 6), (3, 1, 6), (4, 1, 5)] and rest == [(5, 1, 9)]
    assert take_batch([], 2, pair=True) == ([], [])


def test_a_reused_lane_gives_the_next_learner_none_of_the_previous_ones_data_or_weights():
    """An exploiter lane is reused by the next exploiter: the slots its predecessor's
    games filled are freed, not learned, and the simulator does not play the new
    exploiter with the predecessor's weights before the new learner publishes."""
    import multiprocessing as mp

    from league.transport.experience import FREE, SharedWeights

    exp = SharedExperience(n_slots=4, t_max=8)
    for slot, agent in enumerate(["main_exploiter_1", "main_exploiter_2", "main_exploiter_1"]):
        t = _traj(2, 1.0, 0.0)
        t.agent = agent
        exp.write(slot, t)
    mine, stale = exp.claim_filled("main_exploiter_2")
    assert mine == [1] and stale == 2
    assert [int(s) for s in exp.state] == [FREE, 2, FREE, FREE]

    w = SharedWeights(3, mp.get_context("spawn"))
    net = torch.nn.Linear(2, 1)  # 3 parameters
    w.publish(net, agent_key("main_exploiter_1"))
    assert w.read_if_newer(0, agent_key("main_exploiter_2")) is None  # the predecessor's weights
    assert w.read_if_newer(0, agent_key("main_exploiter_1")) is not None
    v = w.publish(net, agent_key("main_exploiter_2"))
    got = w.read_if_newer(0, agent_key("main_exploiter_2"))
    assert got is not None and got[1] == v and w.read_if_newer(0) is not None


def test_simulator_shards_write_only_their_own_slots():
    from league.transport.experience import WRITING, slot_range

    assert [slot_range(10, k, 3) for k in range(3)] == [(0, 3), (3, 6), (6, 10)]
    assert slot_range(8, 0, 1) == (0, 8)  # one shard owns them all
    exp = SharedExperience(6, 8)
    lo, hi = slot_range(6, 1, 2)
    got = [exp.acquire(lo, hi) for _ in range(4)]
    assert got == [3, 4, 5, None]  # shard 1's three, then it waits: shard 0's slots stay free for shard 0
    assert exp.acquire(*slot_range(6, 0, 2)) == 0
    # a restarted shard 1 frees what it held, not shard 0's slot in the middle of a write
    assert exp.reclaim_writing(lo, hi) == [3, 4, 5] and int(exp.state[0]) == WRITING


def test_slot_messages_round_trip_and_bytes_that_are_none_are_refused():
    import msgpack

    from league.transport.messages import BadMessage, SlotMessage

    m = SlotMessage(3, "main", 7, 12, 1.0, "past-0004", battle=99)
    assert SlotMessage.from_wire(m.to_wire()) == m
    for junk in (
        b"\xc1",
        msgpack.packb([3]),
        msgpack.packb({"agent": "main"}),
        msgpack.packb({**m.__dict__, "slot": "3"}),
        msgpack.packb({**m.__dict__, "slot": -1}),
    ):
        with pytest.raises(BadMessage):
            SlotMessage.from_wire(junk)


def test_each_batch_is_learned_epochs_times_each_an_update():
    """learner.epochs=2: every batch taken from shared memory gives two gradient steps,
    each an update (published, reported, checkpointed on its own count); the max_updates
    stop comes between them, not after the pair."""
    from types import SimpleNamespace

    from league.learn.learner_proc import LearnerProcess

    class FakeLearner:
        steps = 0
        seen: list = []
        net = None

        def step_async(self, batch):
            self.seen.append(batch)
            self.steps += 1
            return SimpleNamespace(get=lambda: {"samples": 1.0})

    sent, saved = [], []
    lp = object.__new__(LearnerProcess)
    learner = SimpleNamespace(
        batch_size=2, epochs=2, publish_every=1, checkpoint_every=3, rnad=SimpleNamespace(opponent_kl=False)
    )
    lp.held = False
    lp.cfg, lp.L, lp.warm, lp.unread, lp.stop, lp.max_updates = (
        SimpleNamespace(learner=learner),
        FakeLearner(),
        None,
        None,
        False,
        5,
    )
    lp.exp = SimpleNamespace(batch=lambda slots: tuple(slots), release=lambda slots: None)
    lp.weights = SimpleNamespace(publish=lambda net, owner: lp.L.steps)
    lp.io = SimpleNamespace(send=sent.append)
    lp.owner, lp.version, lp.queued, lp.samples_since, lp.t_last, lp.rate = 0, 0, set(), 0.0, 0.0, 0.0
    lp.save = lambda tag: saved.append(lp.L.steps)
    lp.ready = [(s, 0, s) for s in range(6)]  # three batches of two
    lp.learn()
    assert lp.L.seen == [(0, 1), (0, 1), (2, 3), (2, 3), (4, 5)]  # the third batch's second epoch: past max_updates
    assert lp.L.steps == 5 and lp.stop and saved == [3]
    assert [m.metrics["updates"] for m in sent] == [1, 2, 3, 4, 5]


def test_a_held_learner_frees_what_fills_without_updating():
    """Hold (the run is due, an exploiter finishes): no more updates; the slots that were
    waiting or fill later are freed unlearned, so battles go on finishing; a Hold for
    another learner is not for it."""
    from types import SimpleNamespace

    from league.learn.learner_proc import LearnerProcess
    from league.transport.messages import Hold

    class FakeLearner:
        steps = 7

        def step_async(self, batch):
            raise AssertionError("a held learner updated")

    released: list = []
    lp = object.__new__(LearnerProcess)
    lp.name, lp.L, lp.held, lp.stop = "learner", FakeLearner(), False, False
    lp.cfg = SimpleNamespace(learner=SimpleNamespace(batch_size=2))
    lp.exp = SimpleNamespace(release=released.extend)
    lp.on_command(Hold("learner:main_exploiter_1"))
    assert not lp.held
    lp.on_command(Hold())
    assert lp.held
    lp.ready, lp.queued = [(s, 0, s) for s in range(5)], set(range(5))
    lp.learn()
    assert released == [0, 1, 2, 3, 4] and lp.ready == [] and lp.queued == set() and lp.L.steps == 7


def test_samples_per_s_is_measured_over_a_window_not_between_two_reports(monkeypatch):
    """Two steps' metrics reported back to back (epochs=2) gave a rate over ~0 s: 1,000x
    the true one. The rate is now samples over >= 1 s; between windows the last rate.
    Hand table (100 samples a step, the window opened at t=0):
    t=0.5: 100 in 0.5 s, no full window -> 0.0; t=1.25: 200 in 1.25 s -> 160.0;
    t=1.26: 100 in 0.01 s -> still 160.0; t=2.5: 200 in 1.25 s -> 160.0."""
    from types import SimpleNamespace

    from league.learn import learner_proc
    from league.learn.learner_proc import LearnerProcess

    clock = iter([0.5, 1.25, 1.26, 2.5])
    monkeypatch.setattr(learner_proc, "time", SimpleNamespace(monotonic=lambda: next(clock)))  # this module only
    sent: list = []
    lp = object.__new__(LearnerProcess)
    lp.io = SimpleNamespace(send=sent.append)
    lp.samples_since, lp.t_last, lp.rate = 0.0, 0.0, 0.0
    rates = []
    for _ in range(4):
        lp.unread = (SimpleNamespace(get=lambda: {"samples": 100.0}), 1, 0.0, 1)
        lp._report()
        rates.append(sent[-1].metrics["samples_per_s"])
    assert rates == [0.0, 160.0, 160.0, 160.0]


def test_trajectories_cross_the_ray_wire_whole():
    from dataclasses import asdict

    from league.coordinator.ray_placement.wire import trajectory_from_wire, trajectory_wire

    t = _traj(3, -1.0, 2.0)
    t.opponent, t.battle, t.order, t.group = "past-0004", 77, [0, 8, 9], 12345
    back = trajectory_from_wire(trajectory_wire(t))
    a, b = asdict(t), asdict(back)
    for k in ("obs", "mask"):
        assert all(np.array_equal(x, y) for x, y in zip(a.pop(k), b.pop(k)))
    assert a == b
