"""The Ray placement's actors: a learner (the main one or an exploiter lane's) and a
simulator shard, each running the same component as a process does
(league/learn/learner_proc.py ``LearnerProcess``, league/sim/sim_proc.py ``run_simulator``)."""

from __future__ import annotations

import logging
import os
import threading
import time

import numpy as np
import torch
import zmq

from league.coordinator.ray_placement.wire import RemoteExperience, RemoteLane, RemoteWeights, trajectory_from_wire
from league.device import resolve_device
from league.transport.experience import SharedExperience
from league.transport.messages import Final, shard_name
from league.transport.wiring import ComponentSockets

try:
    import ray
    import ray.util.scheduling_strategies
except ImportError:  # run.placement=ray is refused by verify (league/config.py) before this matters
    ray = None


def _group(name: str):
    """An actor method's concurrency group (its own thread)."""
    return (lambda f: f) if ray is None else ray.method(concurrency_group=name)


def _restarting_errors() -> tuple:
    """What a call to an actor raises while Ray restarts it."""
    ex = ray.exceptions
    return tuple(e for e in (ex.RayActorError, ex.GetTimeoutError, getattr(ex, "ActorUnavailableError", None)) if e)


class ActorWeights:
    """The learner actor's published weights: the last flat vector and its version (the
    same calls as SharedWeights; shards read them through ``LearnerActor.weights``)."""

    def __init__(self, version: int = 0):
        self.flat: np.ndarray | None = None
        self.version, self.owner = version, 0
        self.lock = threading.Lock()

    def publish(self, net: torch.nn.Module, owner: int = 0) -> int:
        vec = torch.nn.utils.parameters_to_vector([p.detach() for p in net.parameters()]).float().cpu().numpy()
        with self.lock:
            self.flat, self.owner = vec, owner
            self.version += 1
            return self.version

    def read_if_newer(self, have: int, owner: int | None = None):
        with self.lock:
            if self.flat is None or self.version <= have or (owner is not None and self.owner != owner):
                return None
            return self.flat, self.version


class LearnerActor:
    """One learner as an actor: ``run`` is LearnerProcess's loop (the default thread);
    ``experience`` (its own thread) writes shards' trajectories into the learner's
    slots; ``weights`` (another) answers shards' polls."""

    def __init__(self, cfg, run_dir: str, addr: dict, n_slots: int | None = None):
        self.cfg, self.run_dir, self.addr = cfg, run_dir, addr
        self.exp = SharedExperience(n_slots or cfg.sim.n_slots, cfg.sim.t_max)
        self.weights_box = ActorWeights()
        self.zctx = zmq.Context()
        self.pull = self.zctx.socket(zmq.PULL)
        self.pull.bind("inproc://experience")
        self.push: zmq.Socket | None = None  # opened by the experience thread, used only there

    def where(self) -> dict:
        return {"pid": os.getpid(), "node": ray.get_runtime_context().get_node_id()}

    def run(self, resume_from: str | None, start_version: int, job: tuple | None = None) -> None:
        """The main learner; or, with ``job`` = (config, directory, name, learner_main's
        keyword arguments), an exploiter's learner on this lane."""
        from league.learn.learner_proc import LearnerProcess

        logging.basicConfig(level=logging.INFO, format="%(asctime)s learner %(levelname)s %(message)s")
        torch.set_num_threads(1)
        cfg, run_dir, name, kw = job or (self.cfg, self.run_dir, "learner", {})
        with self.weights_box.lock:
            self.weights_box.version = max(self.weights_box.version, start_version)
        with ComponentSockets(self.addr, name) as io:  # a failure goes out as Error
            device = resolve_device(cfg.learner.device)
            LearnerProcess(
                cfg,
                run_dir,
                io,
                self.pull,
                self.exp,
                self.weights_box,
                device,
                resume_from,
                name,
                kw.get("max_updates", 0),
                kw.get("resettable", False),
            ).run()

    @_group("experience")
    def experience(self, wire: dict, wait_s: float = 60.0) -> bool:
        """Write one trajectory into a free slot (waiting for one up to ``wait_s``: the
        back-pressure) and announce it; False: dropped after the wait."""
        if self.push is None:
            self.push = self.zctx.socket(zmq.PUSH)
            self.push.connect("inproc://experience")
        traj = trajectory_from_wire(wire)
        deadline = time.monotonic() + wait_s
        while not self.exp.offer(traj, self.push):
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        return True

    @_group("weights")
    def weights(self, have: int, owner: int | None = None):
        """(flat weights, version) newer than ``have`` (and published by ``owner``), or None."""
        return self.weights_box.read_if_newer(have, owner)


class ShardActor:
    """Simulator shard ``shard`` as an actor: ``run`` is ``run_simulator`` with the
    learner actor as its sink and weights source."""

    def __init__(self, shard: int):
        self.shard = shard

    def where(self) -> dict:
        return {"pid": os.getpid(), "node": ray.get_runtime_context().get_node_id()}

    def run(
        self, cfg, run_dir: str, addr: dict, learner, teams: list, eval_history: dict | None, lanes: list | None = None
    ) -> None:
        """``lanes``: shard 0's (lane learner actor, its slots) pairs; None for the others."""
        from league.showdown import reap_strays
        from league.sim.sim_proc import run_simulator, shard_dir

        logging.basicConfig(level=logging.WARNING, format="%(asctime)s sim %(name)s %(levelname)s %(message)s")
        torch.set_num_threads(1)
        k, shards = self.shard, cfg.sim.shards
        fleet_dir = shard_dir(run_dir, k, shards)
        reap_strays(fleet_dir / "showdown", grace_s=10.0)  # a dead predecessor's servers on this node
        sink = RemoteExperience(learner, cfg.sim.n_slots // shards)
        with ComponentSockets(addr, shard_name(k)) as io:  # a failure goes out as Error
            remote_lanes = None if lanes is None else [RemoteLane(a, n) for a, n in lanes]
            run_simulator(
                cfg, fleet_dir, io, sink, RemoteWeights(learner).read_if_newer, teams, remote_lanes, eval_history
            )
            io.send(Final())
