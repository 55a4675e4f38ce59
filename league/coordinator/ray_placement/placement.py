"""The Ray placement's coordinator side: creates the actors, reports their health,
carries out restarts, stops them at the end (the Supervisor's calls, on Ray)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from league.atomic import atomic_write_text
from league.coordinator.coordinator import Health, RestartLearner, RestartSim, SimHealth
from league.coordinator.ray_placement.actors import LearnerActor, ShardActor, _restarting_errors
from league.coordinator.supervisor import exploiter_job, sim_config
from league.transport.messages import Counters, Stop, shard_name
from league.transport.wiring import lane_sizes

try:
    import ray
    import ray.util.scheduling_strategies
except ImportError:  # run.placement=ray is refused by verify (league/config.py) before this matters
    ray = None

RESTART_WAIT_S = 180.0  # longest wait for Ray to bring a restarted actor back


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

    @property
    def main_learner(self) -> _Placed:
        """The main learner's actor (``start`` places it)."""
        if self.learner is None:
            raise RuntimeError("the Ray placement has not started")
        return self.learner

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
        self.main_learner.call("run", resume_from, 0)
        for k in range(cfg.sim.shards):
            self._run_sim(k, eval_history)
        self._write_pids()

    def _run_sim(self, k: int, eval_history: dict | None) -> None:
        cfg = sim_config(self.cfg, k, self._resumed, self._sim_starts[k])
        self._sim_starts[k] += 1
        lanes = [(p.actor, n) for p, n in zip(self.lanes, lane_sizes(self.cfg))] if k == 0 else None
        self.sims[k].call(
            "run", cfg, str(self.run_dir), self.w.addr, self.main_learner.actor, self.teams, eval_history, lanes
        )

    def health(self) -> Health:
        return Health(
            learner_alive=self.main_learner.alive(),
            learner_exitcode=self.main_learner.exitcode,
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
                self.main_learner.restart(a.why)
                # the weights' versions go on from the newest the shards have seen
                self.main_learner.call("run", a.resume, int(coord.mon.sim.get("policy_version", 0)))
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
            "learner": self.main_learner.pid,
            "simulator": self.sims[0].pid,
            "shards": [p.pid for p in self.sims],
            "lanes": [p.pid for p in self.lanes],
            "nodes": {
                "coordinator": ray.get_runtime_context().get_node_id(),
                "learner": self.main_learner.node,
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
