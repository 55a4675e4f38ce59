"""Ray placement (``run.placement=ray``): the same components as the process placement
(league/coordinator/supervisor.py), placed as Ray actors on a local Ray or a cluster.
This package (wire.py, actors.py, placement.py, this driver) is the only one that imports Ray.

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

import logging
import os
import signal
import socket
import sys
import time
from pathlib import Path

import numpy as np
import torch

from league.config import RAY_INSTALL, ConfigError
from league.coordinator.ray_placement.placement import RayPlacement
from league.transport.wiring import lane_sizes

try:
    import ray
    import ray.util.scheduling_strategies
except ImportError:  # run.placement=ray is refused by verify (league/config.py) before this matters
    ray = None

log = logging.getLogger("league.ray")

LOCAL_IP = "127.0.0.1"  # the control channels of a run on a Ray started here (one node)


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
        resources: dict[str, int] = {}
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
