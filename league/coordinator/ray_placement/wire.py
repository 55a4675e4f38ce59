"""The Ray placement's data paths, the shards' side: trajectories as arrays for Ray's
object store, a shard's sink (one learner-actor call per trajectory, bounded), its
weights source (a non-blocking poll) and an exploiter lane's channels for shard 0."""

from __future__ import annotations

from collections import Counter

import numpy as np
import torch

from league.transport.data import Trajectory
from league.transport.experience import ExperienceSink

try:
    import ray
    import ray.util.scheduling_strategies
except ImportError:  # run.placement=ray is refused by verify (league/config.py) before this matters
    ray = None


def trajectory_wire(t: Trajectory) -> dict:
    """A trajectory as arrays (they go through the object store without pickling each step)."""
    return {
        "agent": t.agent,
        "version": t.version,
        "obs": np.stack(t.obs),
        "mask": np.stack(t.mask),
        "is_preview": np.asarray(t.is_preview, dtype=bool),
        "actions": np.asarray(t.actions, dtype=np.int64),
        "logp": np.asarray(t.logp, dtype=np.float32),
        "reward": float(t.reward),
        "opponent": t.opponent,
        "battle": int(t.battle),
        "order": np.asarray(t.order, dtype=np.int64),
        "group": int(t.group),
        "target": np.asarray(t.target, dtype=np.int64),
    }


def trajectory_from_wire(d: dict) -> Trajectory:
    return Trajectory(
        agent=d["agent"],
        version=d["version"],
        obs=d["obs"],
        mask=d["mask"],
        is_preview=d["is_preview"].tolist(),
        actions=d["actions"].tolist(),
        logp=d["logp"].tolist(),
        reward=d["reward"],
        opponent=d["opponent"],
        battle=d["battle"],
        order=d["order"].tolist(),
        group=d["group"],
        target=d["target"].tolist(),
    )


class RemoteExperience:
    """A shard's trajectory sink: one ``LearnerActor.experience`` call per trajectory,
    at most ``bound`` in flight (then False: the Simulator keeps it pending). ``wait_s``:
    how long the learner waits for a free slot before dropping one."""

    def __init__(self, learner, bound: int, wait_s: float = 60.0):
        self.learner, self.bound, self.wait_s = learner, max(1, bound), wait_s
        self.inflight: list = []
        self.dropped: Counter = Counter()  # by reason (the Simulator's stats report them)

    def __call__(self, traj: Trajectory) -> bool:
        if self.inflight:
            done, self.inflight = ray.wait(self.inflight, num_returns=len(self.inflight), timeout=0)
            for ref in done:
                try:
                    self.dropped["slot_wait"] += not ray.get(ref)
                except ray.exceptions.RayError:  # the learner died meanwhile: that trajectory is lost
                    self.dropped["learner_gone"] += 1
        if len(self.inflight) >= self.bound:
            return False
        self.inflight.append(self.learner.experience.remote(trajectory_wire(traj), self.wait_s))
        return True


class RemoteWeights:
    """A shard's weights source: polls ``LearnerActor.weights`` without blocking (an
    answer to a question asked for another ``owner`` is dropped)."""

    def __init__(self, learner):
        self.learner, self.pending, self.asked_for = learner, None, None

    def read_if_newer(self, have: int, owner: int | None = None):
        if self.pending is None or self.asked_for != owner:
            self.pending, self.asked_for = self.learner.weights.remote(have, owner), owner
            return None
        ready, _ = ray.wait([self.pending], timeout=0)
        if not ready:
            return None
        ref, self.pending = self.pending, None
        try:
            got = ray.get(ref)
        except ray.exceptions.RayError:  # the learner is restarting: ask again next time
            return None
        if got is None or got[1] <= have:
            return None
        return torch.from_numpy(np.array(got[0])), got[1]  # a copy: the object store's array is read-only


class RemoteLane:
    """Exploiter lane k's channels for shard 0 (the ``LocalLane`` calls of
    league/sim/sim_proc.py): trajectories to the lane's learner actor, dropped when it
    has no free slot or ``n_slots`` calls are in flight; its weights by owner."""

    def __init__(self, learner, n_slots: int):
        self.put: ExperienceSink = RemoteExperience(learner, n_slots, wait_s=0.0)
        self.read_if_newer = RemoteWeights(learner).read_if_newer
