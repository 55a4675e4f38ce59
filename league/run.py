"""Entry point: ``python -m league.run +experiment=reg_c [overrides]``.

The life of a run, top to bottom:
  1. compose the config (Hydra) and verify all of it at once;
  2. check the edges before any work: Node + Showdown, the team pool (Showdown's
     validator), the checkpoint to resume from;
  3. build the components and connect them (``connect_components``: every queue,
     shared buffer and socket, with producer, consumer and message type);
  4. run: the simulator plays, the learner learns, this process watches: TensorBoard,
     a console progress line, stop conditions, crash reports;
  5. shut down: stop everything, let the learner write its final checkpoint, print one
     JSON line (run_dir, updates, battles, showdown_errors, checkpoint, ...).

Resume a run in place: ``python -m league.run +experiment=reg_c resume=true
hydra.run.dir=<its run dir>``.
"""

from __future__ import annotations

import copy
import json
import logging
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import hydra
import msgpack
import torch.multiprocessing as mp
import zmq
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from league import checkpoint as ckpt
from league.config import Config, ConfigError, register, resolve_device, to_object, verify
from league.learn.learner_proc import learner_main
from league.model.net import PolicyValueNet
from league.population.exploiters import ExploiterConfig, ExploiterManager
from league.population.league import LeagueManager
from league.showdown import ShowdownSetupError, free_port, locate_showdown
from league.sim.experience import SharedExperience, SharedWeights
from league.sim.sim_proc import sim_main
from league.teams import TeamPoolError, TeamRepository

log = logging.getLogger("league.run")
register()


@dataclass
class Wiring:
    ctx: object
    exp: SharedExperience
    free: object
    weights: SharedWeights
    addr: dict
    zctx: zmq.Context
    stats: zmq.Socket
    control: zmq.Socket
    lanes: list


def connect_components(cfg: Config) -> Wiring:
    """Create every queue, shared buffer and socket of a run, in one place."""
    ctx = mp.get_context("spawn")
    # simulator -> learner: whole trajectories in preallocated shared-memory slots
    exp = SharedExperience(cfg.sim.n_slots, cfg.sim.t_max)
    # learner -> simulator: ids of free slots (int); bounded by n_slots = back-pressure
    free = ctx.Queue(maxsize=cfg.sim.n_slots)
    for s in range(cfg.sim.n_slots):
        free.put(s)
    # learner -> simulator: flat float32 weights + version counter (shared memory)
    weights = SharedWeights(sum(p.numel() for p in PolicyValueNet(cfg.model).parameters()), ctx)
    addr = {
        # simulator -> learner, PUSH/PULL, msgpack SlotMessage {slot, agent, version, length, reward, opponent}
        "experience": f"tcp://127.0.0.1:{free_port()}",
        # learner, simulator -> main, PUSH/PULL, msgpack {from, kind: stats|update|checkpoint|final|error, ...}
        "stats": f"tcp://127.0.0.1:{free_port()}",
        # main -> learner, simulator, PUB/SUB, msgpack {cmd: stop|counters, ...}
        "control": f"tcp://127.0.0.1:{free_port()}",
    }
    # exploiter lanes: the same three channels per lane, preallocated so the simulator
    # process holds them from birth (simulator -> exploiter learner k)
    n_params = weights.flat.numel()
    lanes = []
    if cfg.league.enabled and cfg.league.exploiters.enabled:
        ex = cfg.league.exploiters
        for _ in range(ex.lanes):
            lane_free = ctx.Queue(maxsize=ex.n_slots)
            for slot in range(ex.n_slots):
                lane_free.put(slot)
            lanes.append({"exp": SharedExperience(ex.n_slots, cfg.sim.t_max), "free": lane_free,
                          "weights": SharedWeights(n_params, ctx), "addr": f"tcp://127.0.0.1:{free_port()}"})
    zctx = zmq.Context()
    stats = zctx.socket(zmq.PULL)
    stats.bind(addr["stats"])
    control = zctx.socket(zmq.PUB)
    control.bind(addr["control"])
    return Wiring(ctx, exp, free, weights, addr, zctx, stats, control, lanes)


class Monitor:
    """TensorBoard scalars, the console progress line, and the run's counters."""

    def __init__(self, run_dir: Path, cfg: Config, start_counters: dict):
        from torch.utils.tensorboard import SummaryWriter

        self.tb = SummaryWriter(str(run_dir / "tb"))
        self.run_dir = run_dir
        self.cfg = cfg
        self.base = {k: start_counters.get(k, 0) for k in ("battles", "decisions", "showdown_errors", "wall_s")}
        self.updates = int(start_counters.get("updates", 0))
        self.sim: dict = {}
        self.last_sim: dict = {}
        self.learner: dict = {}
        self.t0 = time.monotonic()
        self.last_line = 0.0
        self.rate_start: tuple[float, int] | None = None  # (sim t, battles) once battles flow

    def counters(self) -> dict:
        s = self.sim
        return {
            "updates": self.updates,
            "battles": self.base["battles"] + s.get("battles", 0),
            "decisions": self.base["decisions"] + s.get("decisions", 0),
            "showdown_errors": self.base["showdown_errors"] + s.get("showdown_errors", 0),
            "wall_s": self.base["wall_s"] + (time.monotonic() - self.t0),
        }

    def on_update(self, m: dict) -> None:
        self.updates = int(m["updates"])
        self.learner = m
        for k, v in m.items():
            if isinstance(v, (int, float)) and k != "updates":
                self.tb.add_scalar(f"learner/main/{k}", v, self.updates)

    def on_sim(self, s: dict) -> None:
        prev, self.last_sim, self.sim = self.sim, self.sim, s
        if self.rate_start is None and s["battles"] > 0:
            self.rate_start = (s["t"], s["battles"])
        step = self.updates
        dt = s["t"] - prev.get("t", 0.0)
        if dt > 0 and prev:
            self.tb.add_scalar("sim/battles_per_s", (s["battles"] - prev["battles"]) / dt, step)
            self.tb.add_scalar("sim/decisions_per_s", (s["decisions"] - prev["decisions"]) / dt, step)
            dreq, dfw = s["requests"] - prev["requests"], s["forwards"] - prev["forwards"]
            if dfw > 0:
                self.tb.add_scalar("sim/batch_size_mean", dreq / dfw, step)
                self.tb.add_scalar("sim/infer_ms_per_forward", 1000 * (s["infer_s"] - prev["infer_s"]) / dfw, step)
        self.tb.add_scalar("sim/pending_trajectories", s["pending"], step)
        self.tb.add_scalar("sim/showdown_errors", s["showdown_errors"], step)
        self.tb.add_scalar("sim/server_restarts", s["server_restarts"], step)
        self.tb.add_scalar("sim/dropped_long", s["dropped_long"], step)
        for opp, rate in s["eval"].items():
            self.tb.add_scalar(f"eval/win_rate/{opp}", rate, step)
        for cat, wgt in s.get("curriculum", {}).items():
            self.tb.add_scalar(f"league/curriculum/{cat}", wgt, step)

    def battles_per_s(self) -> float:
        """Steady-state rate: from the first stats with finished battles to the last."""
        if self.rate_start is None or self.sim["t"] <= self.rate_start[0]:
            return 0.0
        return (self.sim["battles"] - self.rate_start[1]) / (self.sim["t"] - self.rate_start[0])

    def summary(self, stop_reason, checkpoint, n_errors: int, league) -> dict:
        c = self.counters()
        return {
            "run_dir": str(self.run_dir),
            "stop_reason": stop_reason,
            "updates": c["updates"],
            "battles": c["battles"],
            "decisions": c["decisions"],
            "showdown_errors": c["showdown_errors"],
            "checkpoint": checkpoint,
            "battles_per_s": round(self.battles_per_s(), 3),
            "eval_win_rate": self.sim.get("eval", {}),
            "eval_games": self.sim.get("eval_games", {}),
            **league.summary(),
            "wall_s": round(c["wall_s"], 1),
            "errors": n_errors,
        }

    def queue_depth(self, depth: int) -> None:
        self.tb.add_scalar("sim/queue_depth", depth, self.updates)

    def line(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last_line < self.cfg.run.progress_every_s:
            return
        self.last_line = now
        c, s, m = self.counters(), self.sim, self.learner
        ev = " ".join(f"{k}={v:.2f}" for k, v in sorted(s.get("eval", {}).items()))
        print(
            f"[{c['wall_s'] / 60:6.1f} min] updates {c['updates']:6d} | battles {c['battles']:7d} | "
            f"errors {c['showdown_errors']} | lag {m.get('policy_lag', 0):.1f} | "
            f"pi {m.get('loss/policy', 0):+.3f} v {m.get('loss/value', 0):.3f} H {m.get('entropy', 0):.2f} | eval {ev}",
            flush=True,
        )


def run(cfg: Config, run_dir: Path) -> dict:
    # ---- 2. check the edges before any work
    install = locate_showdown()
    team_objs = TeamRepository(install).load(cfg.showdown.format, cfg.showdown.teams)
    teams = [t.packed for t in team_objs]
    resume_from = None
    start_counters: dict = {}
    if cfg.resume:
        resume_from = ckpt.latest_checkpoint(run_dir)
        if resume_from is None:
            raise ConfigError([f"resume=true but {ckpt.checkpoint_dir(run_dir)} holds no checkpoint "
                               "(set hydra.run.dir to the run to resume)"])
        start_counters = ckpt.load_checkpoint(resume_from).get("counters", {})
    device = resolve_device(cfg.learner.device)
    if cfg.run.serial:
        return run_serial(cfg, run_dir, teams, resume_from, start_counters, device)

    # ---- 3. build and connect the components
    w = connect_components(cfg)
    learner = w.ctx.Process(target=learner_main, name="learner-main",
                            args=(cfg, str(run_dir), w.addr, w.exp, w.free, w.weights, device,
                                  None if resume_from is None else str(resume_from)))
    sim = w.ctx.Process(target=sim_main, name="simulator",
                        args=(cfg, str(run_dir), w.addr, w.exp, w.free, w.weights, teams, w.lanes))
    mon = Monitor(run_dir, cfg, start_counters)
    league = LeagueManager(cfg.league, run_dir, resume=cfg.resume)
    state = {"checkpoint": str(resume_from) if resume_from else None}
    errors: list[str] = []

    def spawn_exploiter(lane, member):
        ex = cfg.league.exploiters
        ecfg = copy.deepcopy(cfg)
        ecfg.learner.rnad.eta = 0.0  # exploiters learn without regularisation
        ecfg.learner.batch_size = ex.batch_size
        ecfg.learner.checkpoint_every = ex.train_updates
        ecfg.learner.keep_checkpoints = 1
        ecfg.run.init_checkpoint = None
        ecfg.run.seed = cfg.run.seed + 1000 + lane.index
        h = w.lanes[lane.index]
        addr = {**w.addr, "experience": h["addr"]}
        p = w.ctx.Process(target=learner_main, name=f"learner-{member.id}",
                          args=(ecfg, str(run_dir / "exploiters" / member.id), addr, h["exp"], h["free"], h["weights"],
                                device, None),
                          kwargs={"name": f"learner:{member.id}", "max_updates": ex.train_updates})
        p.start()
        return p

    exploiters = ExploiterManager(cfg.league.exploiters if cfg.league.enabled else ExploiterConfig(), league,
                                  team_objs, cfg.run.seed, spawn_exploiter,
                                  lambda cmd: w.control.send(msgpack.packb(cmd)))

    def handle(msg: dict) -> None:
        kind, who = msg["kind"], msg["from"]
        if who.startswith("learner:"):  # an exploiter's learner: its own metrics, never fatal
            mid = who.split(":", 1)[1]
            if kind == "update":
                for k, v in msg["metrics"].items():
                    if isinstance(v, (int, float)):
                        mon.tb.add_scalar(f"learner/{mid}/{k}", v, int(msg["metrics"]["updates"]))
            elif kind == "final":
                exploiters.on_learner_final(mid, msg["path"])
            elif kind == "error":
                print(f"exploiter {mid} failed (the run goes on):\n{msg['text']}", file=sys.stderr)
        elif kind == "update":
            mon.on_update(msg["metrics"])
        elif kind == "stats":
            mon.on_sim(msg["stats"])
            league.on_results(msg["stats"].get("results", []))
        elif kind == "exploiter_eval":
            exploiters.on_eval(msg["id"], msg["wins"], msg["games"])
        elif kind in ("checkpoint", "final") and "path" in msg:
            state["checkpoint"] = msg["path"]
            league.on_checkpoint(msg["path"], msg["updates"])
        elif kind == "error":
            errors.append(f"{who}: {msg['text']}")

    learner.start()
    sim.start()

    # ---- 4. run until a stop condition
    t0 = time.monotonic()
    stop_reason = None
    interrupted = {"flag": False}

    def on_signal(signum, _frame):
        interrupted["flag"] = True

    old_int = signal.signal(signal.SIGINT, on_signal)
    old_term = signal.signal(signal.SIGTERM, on_signal)
    last_tick = 0.0
    due_since = None
    try:
        while stop_reason is None:
            while w.stats.poll(200):
                handle(msgpack.unpackb(w.stats.recv()))
            mon.line()
            now = time.monotonic()
            if now - last_tick > 2.0:
                # league bookkeeping, then tell the others: counters (learner), league (simulator)
                if cfg.league.enabled:
                    league.maybe_snapshot(mon.updates)
                    exploiters.tick(mon.updates)
                    league.log(mon.tb, mon.updates)
                league.save()
                w.control.send(msgpack.packb({"cmd": "counters", "counters": mon.counters()}))
                w.control.send(msgpack.packb({"cmd": "league", "league": league.message()}))
                try:
                    mon.queue_depth(cfg.sim.n_slots - w.free.qsize())
                except NotImplementedError:
                    pass
                last_tick = now
            if interrupted["flag"]:
                stop_reason = "interrupted"
            elif errors or not learner.is_alive() or not sim.is_alive():
                stop_reason = "component failed"
            else:
                due = None
                if cfg.run.max_updates and mon.updates >= cfg.run.max_updates:
                    due = "max_updates"
                elif cfg.run.max_minutes and (now - t0) / 60 >= cfg.run.max_minutes:
                    due = "max_minutes"
                if due and exploiters.pending(mon.updates):  # let an exploiter in flight finish, within bounds
                    due_since = due_since or now
                    if now - due_since < cfg.league.exploiters.finish_timeout_s:
                        due = None
                stop_reason = due
    finally:
        # ---- 5. shut down: stop the simulator and the learner, collect the final checkpoint
        w.control.send(msgpack.packb({"cmd": "counters", "counters": mon.counters()}))
        deadline = time.monotonic() + 90
        while (learner.is_alive() or sim.is_alive()) and time.monotonic() < deadline:
            w.control.send(msgpack.packb({"cmd": "stop"}))
            while w.stats.poll(100):
                handle(msgpack.unpackb(w.stats.recv()))
            learner.join(timeout=0.1)
            sim.join(timeout=0.1)
        for p in (sim, learner, *[ln.process for ln in exploiters.lanes if ln.process is not None]):
            p.join(timeout=2 if p.is_alive() else 0)
            if p.is_alive():
                p.terminate()
                p.join(5)
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)
        league.dirty = True
        league.save()
        mon.line(force=True)
        mon.tb.close()
        w.zctx.destroy(linger=0)
    for e in errors:
        print(e, file=sys.stderr)
    return mon.summary(stop_reason, state["checkpoint"], len(errors), league)


def run_serial(cfg: Config, run_dir: Path, teams: list[str], resume_from, start_counters: dict, device: str) -> dict:
    """The same components in one process: the learner steps inside the simulator's
    event loop whenever a batch of trajectories is ready (battles pause meanwhile)."""
    import asyncio

    import torch

    from league.learn.learner import Learner
    from league.showdown import ShowdownFleet
    from league.sim.policy import PolicyServer
    from league.sim.sim_proc import make_matchmaker
    from league.sim.simulator import Simulator

    L = Learner(cfg.learner, cfg.model, device=device, seed=cfg.run.seed)
    ckpt.restore_learner(L, cfg, resume_from)
    mon = Monitor(run_dir, cfg, start_counters)
    league = LeagueManager(cfg.league, run_dir, resume=cfg.resume)
    exp = SharedExperience(cfg.learner.batch_size, cfg.sim.t_max)  # plain tensors would do; same batching code
    flat = lambda: torch.nn.utils.parameters_to_vector([p.detach().cpu() for p in L.net.parameters()])  # noqa: E731
    ready: list = []
    state = {"checkpoint": str(resume_from) if resume_from else None, "version": 1, "reason": None}

    def save() -> None:
        st = ckpt.learner_state(L, mon.counters(), cfg, state["version"])
        state["checkpoint"] = str(ckpt.save_checkpoint(run_dir, st, L.steps, keep=cfg.learner.keep_checkpoints))
        league.on_checkpoint(state["checkpoint"], L.steps)

    def on_stats(s: dict) -> None:
        mon.on_sim(s)
        league.on_results(s.get("results", []))
        if cfg.league.enabled:
            league.maybe_snapshot(L.steps)
            league.log(mon.tb, L.steps)
        league.save()
        matchmaker.update(league.message())

    with ShowdownFleet(cfg.sim.servers, run_dir) as fleet:
        policy = PolicyServer(PolicyValueNet(cfg.model), "main", seed=cfg.run.seed + 1)
        policy.load_weights(flat(), state["version"])
        matchmaker = make_matchmaker(cfg, policy, teams)
        matchmaker.update(league.message())

        async def learn(stop: asyncio.Event) -> None:
            t0 = time.monotonic()
            while not stop.is_set():
                await asyncio.sleep(0.05)
                while len(ready) >= cfg.learner.batch_size:
                    take = [ready.pop(0) for _ in range(cfg.learner.batch_size)]
                    for i, traj in enumerate(take):
                        exp.write(i, traj)
                    metrics = L.step(exp.batch(list(range(len(take)))))
                    state["version"] += 1
                    policy.load_weights(flat(), state["version"])
                    metrics.update(updates=L.steps, policy_lag=float(sum(state["version"] - 1 - t.version for t in take) / len(take)))
                    mon.on_update(metrics)
                    if L.steps % cfg.learner.checkpoint_every == 0:
                        save()
                mon.line()
                if cfg.run.max_updates and L.steps >= cfg.run.max_updates:
                    state["reason"] = "max_updates"
                elif cfg.run.max_minutes and (time.monotonic() - t0) / 60 >= cfg.run.max_minutes:
                    state["reason"] = "max_minutes"
                if state["reason"]:
                    stop.set()

        async def main() -> None:
            stop = asyncio.Event()
            sim = Simulator(cfg.sim, fleet, policy, teams, lambda t: ready.append(t) or True,
                            battle_format=cfg.showdown.format, seed=cfg.run.seed, on_stats=on_stats,
                            matchmaker=matchmaker)
            await asyncio.gather(sim.run(stop), learn(stop))

        try:
            asyncio.run(main())
        except KeyboardInterrupt:
            state["reason"] = "interrupted"
        save()
    league.dirty = True
    league.save()
    mon.line(force=True)
    mon.tb.close()
    return mon.summary(state["reason"], state["checkpoint"], 0, league)


@hydra.main(version_base=None, config_path="../conf", config_name="config")
def main(dcfg: DictConfig) -> None:
    # ---- 1. compose + verify
    try:
        cfg = to_object(dcfg)
        verify(cfg)
        summary = run(cfg, Path(HydraConfig.get().runtime.output_dir))
    except (ConfigError, ShowdownSetupError, TeamPoolError, ckpt.CheckpointError) as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    print(json.dumps(summary), flush=True)
    if summary["errors"] or summary["stop_reason"] == "component failed":
        sys.exit(1)


if __name__ == "__main__":
    main()
