"""Ray placement (``run.placement=ray``): the same components as the process placement
(league/coordinator/supervisor.py), placed as Ray actors on a local Ray or a cluster.
This is the only module that imports Ray.

Actors, each with its resource request (``ray.*``):
- the coordinator (``ray.coordinator_cpus``, on the driver's node): the loop of
  league/coordinator/loop.py with the Coordinator and Monitor as in the process
  placement; it creates the others and binds the control channels on TCP
  (league/transport/wiring.py ``connect_tcp``);
- ``sim.shards`` simulator shards (``ray.sim_cpus``, ``ray.sim_gpus``,
  ``ray.sim_resources``), each with its own Showdown fleet, running
  ``run_simulator`` (league/sim/sim_proc.py); ``max_restarts = run.max_sim_restarts``;
- the main agent's learner (``ray.learner_cpus``, ``ray.learner_gpus``,
  ``ray.learner_resources``), running ``LearnerProcess`` (league/learn/learner_proc.py);
  ``max_restarts = run.max_learner_restarts``;
- one learner actor per exploiter lane (the same requests; lane k at k, numbered as
  league/transport/wiring.py ``lane_sizes``), created at the start: each exploiter the
  coordinator spawns on lane k is a ``run`` call on that actor (its config and directory
  from league/coordinator/supervisor.py ``exploiter_job``), so one lane's exploiters
  follow one another in one process, as they do on the lane's buffers on one machine.
  Shard 0 plays the lanes: its ``RemoteLane`` k sends the lane's trajectories to actor k
  (dropped, not waited for, when the lane has no free slot) and polls its weights by owner.

Data paths:
- control: reports (PUSH -> the coordinator's PULL) and commands (the coordinator's PUB
  -> SUB), zmq + msgpack over TCP, the same messages as on this machine;
- experience: each trajectory goes from a shard to the learner as an actor call whose
  arrays travel through Ray's object store: shared memory when the shard and the
  learner share a node (read without a copy), sent between the nodes' stores when they
  do not. The learner writes it into its SharedExperience slots and announces it with
  a SlotMessage, as on one machine. Bounded: a learner with no free slot holds the call
  (the next ones queue behind it), and a shard keeps at most its share of
  ``sim.n_slots`` calls in flight; past that its sink says "not yet" and the players
  pause at ``sim.max_pending``, as with shared memory;
- weights: the learner keeps its last published flat weights with their version; each
  shard asks for newer ones every ``sim.weights_poll_s`` (version-tagged, as SharedWeights).

Faults: an actor whose process dies is restarted by Ray (``max_restarts``); the
coordinator sees its running call fail (the health it reads), decides the restart as
for a process, and the placement hands the restarted actor what it needs again (the
shard: its seed, the evaluation history, the lanes' commands through the coordinator;
the learner: the checkpoint to resume from and the weights version to go on from). A
hung or failed actor is killed through Ray (``ray.kill(no_restart=False)``) so that Ray
restarts it; a run that needs more restarts than allowed stops, as on one machine.

The run directory must be the same path on every node (a shared filesystem): the
learner writes checkpoints there, the coordinator reads them, the simulator shards
load league members from them.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import socket
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import numpy as np
import torch
import zmq

from league.atomic import atomic_write_text
from league.config import RAY_INSTALL, ConfigError, resolve_device
from league.coordinator.coordinator import Health, RestartLearner, RestartSim, SimHealth
from league.coordinator.supervisor import exploiter_job, sim_config
from league.transport.data import Trajectory
from league.transport.experience import SharedExperience
from league.transport.messages import Counters, Final, SlotMessage, Stop, shard_name
from league.transport.wiring import ComponentSockets, lane_sizes

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


log = logging.getLogger("league.ray")

LOCAL_IP = "127.0.0.1"  # the control channels of a run on a Ray started here (one node)
RESTART_WAIT_S = 180.0  # longest wait for Ray to bring a restarted actor back


# ---------------------------------------------------------------- trajectories on the wire


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
    )


# ---------------------------------------------------------------- the learner's side


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
        self.push = None  # opened by the experience thread, used only there

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
        while (slot := self.exp.acquire()) is None:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        self.exp.write(slot, traj)
        msg = SlotMessage(slot, traj.agent, traj.version, len(traj), traj.reward, traj.opponent, traj.battle)
        self.push.send(msg.to_wire())
        return True

    @_group("weights")
    def weights(self, have: int, owner: int | None = None):
        """(flat weights, version) newer than ``have`` (and published by ``owner``), or None."""
        return self.weights_box.read_if_newer(have, owner)


# ---------------------------------------------------------------- the shards' side


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
        self.put = RemoteExperience(learner, n_slots, wait_s=0.0)
        self.read_if_newer = RemoteWeights(learner).read_if_newer


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


# ---------------------------------------------------------------- placing them


class _Placed:
    """One actor and its running call: alive while the call runs."""

    def __init__(self, actor, name: str):
        self.actor, self.name = actor, name
        self.ref = None
        self.pid, self.node = 0, ""
        self.exitcode: int | None = None
        self.died = False  # its process died (Ray restarts it by itself)

    def locate(self, old_pid: int = 0) -> None:
        """Wait until the actor answers from a process other than ``old_pid`` (after a restart)."""
        deadline = time.monotonic() + RESTART_WAIT_S
        while True:
            try:
                where = ray.get(self.actor.where.remote(), timeout=30)
                if where["pid"] != old_pid:
                    self.pid, self.node = where["pid"], where["node"]
                    return
            except _restarting_errors():
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name}: Ray did not bring the actor back within {RESTART_WAIT_S:.0f} s")
            time.sleep(0.5)

    def call(self, method: str, *args) -> None:
        self.exitcode, self.died = None, False
        self.ref = getattr(self.actor, method).remote(*args)

    def alive(self) -> bool:
        if self.ref is None:
            return self.exitcode is None
        ready, _ = ray.wait([self.ref], timeout=0)
        if not ready:
            return True
        try:
            ray.get(self.ref)
            self.exitcode = 0
        except ray.exceptions.RayActorError:  # the process died
            self.exitcode, self.died = -9, True
        except ray.exceptions.RayError:  # an exception in the call
            self.exitcode = 1
        self.ref = None
        return False

    # what the exploiter managers ask of a lane's "process" (league/population/exploiters.py)
    def is_alive(self) -> bool:
        return self.alive()

    def restart(self, why: str) -> None:
        """A fresh process for this actor: Ray restarts a dead one by itself; a hung or
        failed one is killed so that Ray restarts it."""
        old = self.pid
        self.alive()
        if not self.died:
            ray.kill(self.actor, no_restart=False)
        self.locate(old)


class RayPlacement:
    """The coordinator's side: creates the actors, reports their health, carries out
    restarts, stops them at the end (the Supervisor's calls, on Ray)."""

    def __init__(self, cfg, run_dir: Path, wiring, teams: list):  # teams: the pool's Team objects
        self.cfg, self.run_dir, self.w, self.teams = cfg, run_dir, wiring, teams
        self.learner: _Placed | None = None
        self.sims: list[_Placed] = []
        self.lanes: list[_Placed] = []  # the exploiter lanes' learner actors, lane k at k
        self._resumed: int | None = None
        self._sim_starts = [0] * cfg.sim.shards
        self._pids: dict | None = None
        self._last_chores = 0.0

    def spawn_exploiter(self, lane, member, league_exploiter: bool):
        """An exploiter's learner as a ``run`` call on its lane's actor (``exploiter_job``);
        a lane actor that died is first awaited back from Ray."""
        ecfg, mdir, resume, kw = exploiter_job(self.cfg, self.run_dir, lane, member, league_exploiter)
        placed = self.lanes[lane.index]
        running = placed.ref is not None and placed.alive()
        if placed.died or running:  # one learner per lane at a time: a previous one still running is ended
            placed.restart(f"a new learner for {member.id}")
        placed.call("run", None if resume is None else str(resume), 0, (ecfg, str(mdir), f"learner:{member.id}", kw))
        return placed

    def start(self, resume_from: str | None, resumed_updates: int = 0, eval_history: dict | None = None) -> None:
        cfg, rc = self.cfg, self.cfg.ray
        self._resumed = resumed_updates if resume_from else None
        Learners = ray.remote(concurrency_groups={"experience": 1, "weights": 1})(LearnerActor)
        request = {
            "num_cpus": rc.learner_cpus,
            "num_gpus": rc.learner_gpus,
            "resources": dict(rc.learner_resources) or None,
        }
        Learner = Learners.options(**request, max_restarts=cfg.run.max_learner_restarts)
        self.learner = _Placed(Learner.remote(cfg, str(self.run_dir), self.w.addr), "learner")
        # the exploiter managers bound their learners' restarts themselves (a lane actor
        # that dies is brought back by Ray for the next exploiter on the lane)
        Lane = Learners.options(**request, max_restarts=-1)
        self.lanes = [
            _Placed(Lane.remote(cfg, str(self.run_dir), self.w.addr, n), f"lane {k}")
            for k, n in enumerate(lane_sizes(cfg))
        ]
        Shard = ray.remote(ShardActor).options(
            num_cpus=rc.sim_cpus,
            num_gpus=rc.sim_gpus,
            resources=dict(rc.sim_resources) or None,
            max_restarts=cfg.run.max_sim_restarts,
        )
        self.sims = [_Placed(Shard.remote(k), shard_name(k)) for k in range(cfg.sim.shards)]
        for p in (self.learner, *self.lanes, *self.sims):
            p.locate()
        self.learner.call("run", resume_from, 0)
        for k in range(cfg.sim.shards):
            self._run_sim(k, eval_history)
        self._write_pids()

    def _run_sim(self, k: int, eval_history: dict | None) -> None:
        cfg = sim_config(self.cfg, k, self._resumed, self._sim_starts[k])
        self._sim_starts[k] += 1
        lanes = [(p.actor, n) for p, n in zip(self.lanes, lane_sizes(self.cfg))] if k == 0 else None
        self.sims[k].call(
            "run", cfg, str(self.run_dir), self.w.addr, self.learner.actor, self.teams, eval_history, lanes
        )

    def health(self) -> Health:
        return Health(
            learner_alive=self.learner.alive(),
            learner_exitcode=self.learner.exitcode,
            shards=[SimHealth(p.alive(), p.exitcode, p.pid) for p in self.sims],
        )

    def execute(self, actions: list, coord) -> None:
        for a in actions:
            if isinstance(a, RestartSim):
                what = "simulator" if self.cfg.sim.shards == 1 else f"simulator shard {a.shard}"
                print(f"[coordinator] {what} {a.why}", flush=True)
                self.sims[a.shard].restart(a.why)
                self._run_sim(a.shard, coord.mon.eval_window())
            elif isinstance(a, RestartLearner):
                print(f"[coordinator] main learner {a.why} from {a.resume or 'its initial weights'}", flush=True)
                self.learner.restart(a.why)
                # the weights' versions go on from the newest the shards have seen
                self.learner.call("run", a.resume, int(coord.mon.sim.get("policy_version", 0)))
            else:
                self.w.send(a)
        now = time.monotonic()
        if now - self._last_chores > 2.0:
            self._last_chores = now
            self._write_pids()

    def _write_pids(self) -> None:
        """RUN_DIR/processes.json: the actors' process ids and Ray node ids."""
        pids = {
            "main": os.getpid(),
            "learner": self.learner.pid,
            "simulator": self.sims[0].pid,
            "shards": [p.pid for p in self.sims],
            "lanes": [p.pid for p in self.lanes],
            "nodes": {
                "coordinator": ray.get_runtime_context().get_node_id(),
                "learner": self.learner.node,
                "shards": [p.node for p in self.sims],
                "lanes": [p.node for p in self.lanes],
            },
        }
        if pids != self._pids:
            atomic_write_text(self.run_dir / "processes.json", json.dumps(pids))
            self._pids = pids

    def shutdown(self, coord) -> None:
        """Stop the shards and the learners (they write their final checkpoints; their
        reports still reach the coordinator), then end the actors."""
        w = self.w
        busy_lanes = [p for p in self.lanes if p.ref is not None]  # an idle lane has nothing to stop
        placed = [p for p in (self.learner, *self.sims, *busy_lanes) if p is not None]
        w.send(Counters(coord.counters()))
        deadline = time.monotonic() + 90
        while any(p.alive() for p in placed) and time.monotonic() < deadline:
            w.send(Stop())
            coord.take(w.receive(100), [p.pid for p in self.sims], time.monotonic())
        coord.take(w.receive(300), [p.pid for p in self.sims], time.monotonic())
        for p in (self.learner, *self.sims, *self.lanes):
            if p is not None:
                ray.kill(p.actor, no_restart=True)


# ---------------------------------------------------------------- the coordinator actor and the driver


class CoordinatorActor:
    """The coordinator's loop (league/coordinator/loop.py) in an actor on the driver's node."""

    def __init__(
        self, cfg, run_dir: str, team_objs: list, resume_from: str | None, start_counters: dict, host: str | None
    ):
        self.args = (cfg, Path(run_dir), team_objs, resume_from, start_counters)
        self.host = host  # where the control channels listen (None: this node's address in the cluster)
        self.coord = None
        self.interrupted = False

    def run(self) -> tuple[dict, list[str]]:
        from league.coordinator.loop import coordinate
        from league.coordinator.view import Tee
        from league.transport.wiring import connect_tcp

        cfg, run_dir, team_objs, resume_from, start_counters = self.args
        w = connect_tcp(self.host or ray.util.get_node_ip_address())
        place = RayPlacement(cfg, run_dir, w, team_objs)

        def hold(coord):
            self.coord = coord
            if self.interrupted:
                coord.interrupt()

        # the console lines go to run.log from here (Ray forwards them to the driver's terminal)
        with open(run_dir / "run.log", "a", buffering=1) as log_file:
            out, err = sys.stdout, sys.stderr
            sys.stdout, sys.stderr = Tee(out, log_file), Tee(err, log_file)
            try:
                return coordinate(
                    cfg,
                    run_dir,
                    w,
                    place,
                    team_objs,
                    resume_from,
                    start_counters,
                    view=None,
                    on_coordinator=hold,
                    signals=False,
                )
            finally:
                sys.stdout.flush()
                sys.stdout, sys.stderr = out, err

    def interrupt(self) -> None:
        self.interrupted = True
        if self.coord is not None:
            self.coord.interrupt()


def role_requests(cfg) -> dict:
    """Each role's (settings, resource request, how many of it): the coordinator, the
    simulator shards, the learners (the main one and one per exploiter lane)."""
    rc = cfg.ray
    return {
        "the coordinator": ("ray.coordinator_cpus", {"CPU": rc.coordinator_cpus}, 1),
        "a simulator shard": (
            "ray.sim_cpus, ray.sim_gpus, ray.sim_resources",
            {"CPU": rc.sim_cpus, "GPU": rc.sim_gpus, **rc.sim_resources},
            cfg.sim.shards,
        ),
        "the learner": (
            "ray.learner_cpus, ray.learner_gpus, ray.learner_resources",
            {"CPU": rc.learner_cpus, "GPU": rc.learner_gpus, **rc.learner_resources},
            1 + len(lane_sizes(cfg)),
        ),
    }


def total_request(cfg) -> dict[str, float]:
    """All roles' requests at once, per resource."""
    total: dict[str, float] = {}
    for _, need, n in role_requests(cfg).values():
        for k, v in need.items():
            total[k] = total.get(k, 0.0) + n * v
    return total


def _connect(cfg) -> bool:
    """ray.init as ``ray.address`` says; True when this started a local Ray (stopped at the end)."""
    if ray is None:
        raise ConfigError([f"run.placement=ray needs Ray, not installed here: {RAY_INSTALL}"])
    rc = cfg.ray
    os.environ.setdefault("RAY_COLOR_PREFIX", "0")  # the actors' lines in run.log without colour codes
    if rc.address == "":
        total = total_request(cfg)
        need_cpus, need_gpus = total["CPU"], total["GPU"]
        extra = {}
        if rc.object_store_mb:
            extra["object_store_memory"] = rc.object_store_mb * 1024 * 1024
        resources = {}
        for r in (rc.sim_resources, rc.learner_resources):  # custom resources exist on the local node
            for name in r:
                resources[name] = resources.get(name, 0) + 1000
        ray.init(
            num_cpus=max(os.cpu_count() or 1, int(np.ceil(need_cpus))),
            num_gpus=max(torch.cuda.device_count(), int(np.ceil(need_gpus))) if need_gpus else None,
            resources=resources or None,
            include_dashboard=False,
            log_to_driver=True,
            logging_level=logging.WARNING,
            _node_ip_address=LOCAL_IP,
            **extra,
        )  # Ray's own ports on loopback
        return True
    fix = (
        "start its head with `ray start --head` (and `ray start --address=HEAD:6379` on the other nodes), or "
        "leave ray.address empty for a Ray on this machine"
    )
    if rc.address != "auto":  # Ray would retry an address where nothing listens for minutes: ask once first
        host, port = rc.address.removeprefix("ray://").rsplit(":", 1)
        try:
            socket.create_connection((host, int(port)), timeout=10).close()
        except OSError as e:
            raise ConfigError([f"ray.address={rc.address}: nothing answers there ({e}); {fix}"]) from None
    try:
        ray.init(address=rc.address, log_to_driver=True, logging_level=logging.WARNING)
    except (ConnectionError, RuntimeError, ValueError) as e:
        raise ConfigError([f"ray.address={rc.address}: could not join a Ray cluster there ({e}); {fix}"]) from None
    return False


def check_fits(cfg, nodes: list[dict]) -> None:
    """Each role's request fits on some node of the cluster (``nodes``: ray.nodes()), and
    all of them fit in the cluster's totals; or one ConfigError naming the settings: Ray
    would otherwise wait for such a node forever."""
    problems = []
    alive = [n.get("Resources", {}) for n in nodes if n.get("Alive", True)]
    roles = role_requests(cfg)
    shown = [{k: v for k, v in r.items() if not k.startswith("node:")} for r in alive]
    for role, (keys, need, _) in roles.items():
        need = {k: v for k, v in need.items() if v > 0}
        if not any(all(res.get(k, 0) >= v for k, v in need.items()) for res in alive):
            problems.append(f"{role} asks for {need} ({keys}) but no node of the Ray cluster has that (nodes: {shown})")
    # all of them at once: the shards and every learner (the main one and one per exploiter lane)
    have = {k: sum(r.get(k, 0) for r in alive) for k in total_request(cfg)}
    short = {k: (v, have[k]) for k, v in total_request(cfg).items() if v > have[k] + 1e-9}
    if short and not problems:
        problems.append(
            f"the run asks for {', '.join(f'{v:g} {k}' for k, (v, _) in short.items())} in all "
            f"({cfg.sim.shards} simulator shards, {roles['the learner'][2]} learners: the main one and one per "
            f"exploiter lane) but the Ray cluster has {', '.join(f'{h:g}' for _, h in short.values())}; "
            "add nodes, or lower ray.sim_*, ray.learner_*, sim.shards, league.exploiters.lanes or "
            "league.league_exploiters.count"
        )
    if problems:
        raise ConfigError(problems)


def run_ray(
    cfg, run_dir: Path, team_objs: list, resume_from: str | None, start_counters: dict
) -> tuple[dict, list[str]]:
    """The driver: join or start Ray, run the coordinator actor to the end (SIGINT /
    SIGTERM end the run cleanly), stop what it started."""
    started = _connect(cfg)
    try:
        check_fits(cfg, ray.nodes())
    except ConfigError:
        ray.shutdown()
        raise
    stop = {"asked": False, "force": False}

    def on_signal(*_):  # the first: a clean stop (final checkpoint); a second: end the driver now
        stop.update(force=stop["asked"], asked=True)

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    coord = None
    # the actors' lines Ray forwards go to the terminal only: the coordinator actor writes run.log itself
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (getattr(s, "stream", s) for s in streams)
    try:
        here = ray.get_runtime_context().get_node_id()
        Coord = ray.remote(CoordinatorActor).options(
            num_cpus=cfg.ray.coordinator_cpus,
            max_restarts=0,
            max_concurrency=2,
            scheduling_strategy=ray.util.scheduling_strategies.NodeAffinitySchedulingStrategy(here, soft=False),
        )
        # a Ray started here is one node: the control channels stay on loopback (unless run.bind
        # names an address: then they authenticate every peer, league/transport/wiring.py)
        coord = Coord.remote(
            cfg,
            str(Path(run_dir).resolve()),
            team_objs,
            resume_from,
            start_counters,
            cfg.run.bind or (LOCAL_IP if started else None),
        )
        ref = coord.run.remote()
        told = False
        while True:
            ready, _ = ray.wait([ref], timeout=0.5)
            if ready:
                break
            if stop["force"]:
                print(
                    "second interrupt: stopping the actors now (resume=true continues from the last checkpoint)",
                    file=sys.stderr,
                    flush=True,
                )
                raise KeyboardInterrupt
            if stop["asked"] and not told:
                coord.interrupt.remote()
                told = True
        try:
            return ray.get(ref)
        except ray.exceptions.RayError as e:
            print(f"the coordinator failed:\n{e}", file=sys.stderr)
            raise
    finally:
        time.sleep(1.0)  # Ray's forwarding of the actors' last lines
        sys.stdout, sys.stderr = streams
        for s, h in old.items():
            signal.signal(s, h)
        if coord is not None:
            ray.kill(coord, no_restart=True)
        ray.shutdown()
        if started:
            log.info("stopped the local Ray")
