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
import os
import random
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import hydra
import msgpack
import torch.multiprocessing as mp
import zmq
from hydra.core.hydra_config import HydraConfig
from hydra.types import RunMode
from omegaconf import DictConfig

from league import checkpoint as ckpt
from league.config import Config, ConfigError, register, resolve_device, to_object, verify
from league.learn.learner_proc import learner_main
from league.model.net import PolicyValueNet
from league.population.exploiters import (
    ExploiterConfig,
    ExploiterManager,
    LeagueExploiterConfig,
    LeagueExploiterManager,
)
from league.population.league import LeagueManager
from league.population.nash import NashError
from league.showdown import ShowdownSetupError, locate_showdown, reap_strays
from league.sim.experience import SharedExperience, SharedWeights
from league.sim.sim_proc import sim_main
from league.teams import TeamPoolError, TeamRepository
from league.teams.repo import atomic_write_text

log = logging.getLogger("league.run")
register()


@dataclass
class Wiring:
    ctx: object
    exp: SharedExperience
    weights: SharedWeights
    addr: dict
    zctx: zmq.Context
    stats: zmq.Socket
    control: zmq.Socket
    lanes: list
    sock_dir: Path  # the ipc:// endpoints' directory, removed at shutdown


def connect_components(cfg: Config) -> Wiring:
    """Create every queue, shared buffer and socket of a run, in one place.

    The sockets are ipc:// endpoints in a fresh private directory: no TCP port is
    chosen at all, so runs side by side cannot collide (a port picked free and bound
    later could be taken meanwhile). A short /tmp path: socket names are limited to
    ~107 bytes."""
    ctx = mp.get_context("spawn")
    sock_dir = Path(tempfile.mkdtemp(prefix="league-"))

    def endpoint(name: str) -> str:
        return f"ipc://{sock_dir}/{name}"

    # simulator -> learner: whole trajectories in preallocated shared-memory slots; each
    # slot's state (free / writing / filled) in shared memory is the back-pressure
    exp = SharedExperience(cfg.sim.n_slots, cfg.sim.t_max)
    # learner -> simulator: flat float32 weights + version counter (shared memory)
    weights = SharedWeights(sum(p.numel() for p in PolicyValueNet(cfg.model).parameters()), ctx)
    addr = {
        # simulator -> learner, PUSH/PULL, msgpack SlotMessage {slot, agent, version, length, reward, opponent}
        "experience": endpoint("experience"),
        # learner, simulator -> main, PUSH/PULL, msgpack {from, kind: stats|update|checkpoint|final|error, ...}
        "stats": endpoint("stats"),
        # main -> learner, simulator, PUB/SUB, msgpack {cmd: stop|counters, ...}
        "control": endpoint("control"),
    }
    # exploiter lanes: the same three channels per lane, preallocated so the simulator
    # process holds them from birth (simulator -> exploiter learner k); main exploiters'
    # lanes first, then one per league exploiter
    n_params = weights.flat.numel()
    lanes = []
    sizes = []
    if cfg.league.enabled and cfg.league.exploiters.enabled:
        sizes += [cfg.league.exploiters.n_slots] * cfg.league.exploiters.lanes
    if cfg.league.enabled and cfg.league.league_exploiters.enabled:
        sizes += [cfg.league.league_exploiters.n_slots] * cfg.league.league_exploiters.count
    for k, n_slots in enumerate(sizes):
        lanes.append({"exp": SharedExperience(n_slots, cfg.sim.t_max),
                      "weights": SharedWeights(n_params, ctx), "addr": endpoint(f"lane-{k}")})
    zctx = zmq.Context()
    stats = zctx.socket(zmq.PULL)
    stats.bind(addr["stats"])
    control = zctx.socket(zmq.PUB)
    control.bind(addr["control"])
    return Wiring(ctx, exp, weights, addr, zctx, stats, control, lanes, sock_dir)


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
        self.rate_done = [0.0, 0]  # (seconds, battles) of simulators that died (restarts)

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
        self.tb.add_scalar("sim/timed_out", s.get("timed_out", 0), step)
        for opp, rate in s["eval"].items():
            self.tb.add_scalar(f"eval/win_rate/{opp}", rate, step)
        for cat, wgt in s.get("curriculum", {}).items():
            self.tb.add_scalar(f"league/curriculum/{cat}", wgt, step)

    def on_sim_restart(self) -> None:
        """The simulator died: its counters join the base, the next one counts from 0."""
        s = self.sim
        for k in ("battles", "decisions", "showdown_errors"):
            self.base[k] += s.get(k, 0)
        if self.rate_start is not None and s.get("t", 0.0) > self.rate_start[0]:
            self.rate_done[0] += s["t"] - self.rate_start[0]
            self.rate_done[1] += s["battles"] - self.rate_start[1]
        self.sim, self.last_sim, self.rate_start = {}, {}, None

    def battles_per_s(self) -> float:
        """Steady-state rate: from the first stats with finished battles to the last
        (summed over simulators when one was restarted)."""
        secs, n = self.rate_done
        if self.rate_start is not None and self.sim["t"] > self.rate_start[0]:
            secs += self.sim["t"] - self.rate_start[0]
            n += self.sim["battles"] - self.rate_start[1]
        return n / secs if secs > 0 else 0.0

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
    beats: dict[str, float] = {}  # last sign of life of the learner and the simulator

    def start_learner(resume: Path | None):
        p = w.ctx.Process(target=learner_main, name="learner-main",
                          args=(cfg, str(run_dir), w.addr, w.exp, w.weights, device,
                                None if resume is None else str(resume)))
        p.start()
        beats["learner"] = time.monotonic()
        return p

    def start_sim():
        p = w.ctx.Process(target=sim_main, name="simulator",
                          args=(cfg, str(run_dir), w.addr, w.exp, w.weights, teams, w.lanes))
        p.start()
        beats["sim"] = time.monotonic()
        state["sim_up"] = False  # until its first stats: commands sent before are lost (PUB/SUB)
        return p

    mon = Monitor(run_dir, cfg, start_counters)
    league = LeagueManager(cfg.league, run_dir, resume=cfg.resume)
    state = {"checkpoint": str(resume_from) if resume_from else None}
    errors: list[str] = []

    def spawn_learner(lane, member, *, league_exploiter: bool):
        """Start the learner process of an exploiter on its lane (a league exploiter
        resumes from its own last checkpoint when it has one)."""
        ecfg = copy.deepcopy(cfg)
        mdir = run_dir / "exploiters" / member.id
        ecfg.learner.keep_checkpoints = 2
        ecfg.run.init_checkpoint = None
        ecfg.run.seed = cfg.run.seed + 1000 + lane.index
        if league_exploiter:
            le = cfg.league.league_exploiters
            ecfg.learner.batch_size = le.batch_size
            ecfg.learner.checkpoint_every = le.checkpoint_every
            kw = {"resettable": True}
            resume = ckpt.latest_checkpoint(mdir)
        else:
            ex = cfg.league.exploiters
            ecfg.learner.rnad.eta = 0.0  # main exploiters learn without regularisation
            ecfg.learner.batch_size = ex.batch_size
            ecfg.learner.checkpoint_every = ex.train_updates
            kw = {"max_updates": ex.train_updates}
            resume = None
        h = w.lanes[lane.index]
        addr = {**w.addr, "experience": h["addr"]}
        p = w.ctx.Process(target=learner_main, name=f"learner-{member.id}",
                          args=(ecfg, str(mdir), addr, h["exp"], h["weights"], device,
                                None if resume is None else str(resume)),
                          kwargs={"name": f"learner:{member.id}", **kw})
        p.start()
        return p

    send_cmd = lambda cmd: w.control.send(msgpack.packb(cmd))  # noqa: E731
    ex_cfg = cfg.league.exploiters if cfg.league.enabled else ExploiterConfig()
    le_cfg = cfg.league.league_exploiters if cfg.league.enabled else LeagueExploiterConfig()
    exploiters = ExploiterManager(ex_cfg, league, team_objs, cfg.run.seed,
                                  lambda lane, m: spawn_learner(lane, m, league_exploiter=False), send_cmd)
    league_exploiters = LeagueExploiterManager(le_cfg, league, cfg.run.seed,
                                               lambda lane, m: spawn_learner(lane, m, league_exploiter=True), send_cmd,
                                               lane_offset=len(exploiters.lanes) if ex_cfg.enabled else 0)

    def handle(msg: dict) -> None:
        kind, who = msg["kind"], msg["from"]
        if who == "sim" and msg.get("pid") != sim.pid:
            return  # queued by a simulator that died since: its counters are already folded in
        if who.startswith("learner:"):  # an exploiter's learner: its own metrics, never fatal
            mid = who.split(":", 1)[1]
            if kind == "update":
                for k, v in msg["metrics"].items():
                    if isinstance(v, (int, float)):
                        mon.tb.add_scalar(f"learner/{mid}/{k}", v, int(msg["metrics"]["updates"]))
            elif kind == "checkpoint":
                league_exploiters.on_checkpoint(mid, msg["path"], msg["updates"])
            elif kind == "final":
                exploiters.on_learner_final(mid, msg["path"])
                league_exploiters.on_checkpoint(mid, msg["path"], msg["updates"])
            elif kind == "reset":
                mon.tb.add_scalar(f"learner/{mid}/reset", 1, int(msg["updates"]))
            elif kind == "error":
                print(f"exploiter {mid} failed (the run goes on):\n{msg['text']}", file=sys.stderr)
        elif kind == "heartbeat":
            beats[who] = time.monotonic()
        elif kind == "portfolio" and who == "learner":
            state["portfolio_acked"] = msg["members"]
        elif kind == "update":
            beats[who] = time.monotonic()
            mon.on_update(msg["metrics"])
        elif kind == "stats":
            state["sim_up"] = True
            beats["sim"] = time.monotonic()
            mon.on_sim(msg["stats"])
            league.on_results(msg["stats"].get("results", []))
        elif kind == "pair_results":  # a league exploiter's games
            league.on_results(msg["results"], agent=msg["agent"])
        elif kind == "exploiter_eval":
            exploiters.on_eval(msg["id"], msg["wins"], msg["games"])
        elif kind in ("checkpoint", "final") and "path" in msg:
            state["checkpoint"] = msg["path"]
            league.on_checkpoint(msg["path"], msg["updates"])
        elif kind == "error" and who == "learner":  # its process is restarted (or the run stops) below
            print(f"main learner failed:\n{msg['text']}", file=sys.stderr)
        elif kind == "error":  # the simulator: it exits next and is restarted (or the run stops) below
            errors.append(f"{who}: {msg['text']}")
            print(f"simulator failed:\n{msg['text']}", file=sys.stderr)

    def update_portfolio(now: float) -> None:
        """Portfolio R-NaD: revise the main learner's references every update_every_s;
        resend them until the learner (maybe just restarted) acknowledges them."""
        pf = cfg.learner.portfolio
        if pf.size <= 0:
            return
        if now - state.get("portfolio_at", -1e9) >= pf.update_every_s:
            state["portfolio_at"] = now
            try:
                refs = league.portfolio(pf.size, pf.strategy)
            except NashError as e:
                print(f"portfolio not revised: {e}", file=sys.stderr)
                refs = state.get("portfolio")
            if refs and refs != state.get("portfolio"):
                state["portfolio"] = refs
                mon.tb.add_text("league/portfolio", ", ".join(mid for mid, _ in refs), mon.updates)
        refs = state.get("portfolio")
        if refs and state.get("portfolio_acked") != [mid for mid, _ in refs]:
            w.control.send(msgpack.packb({"cmd": "portfolio", "to": "learner", "members": refs}))

    def write_pids() -> None:
        """RUN_DIR/processes.json: the run's process ids, for operators (and tests)."""
        pids = {"main": os.getpid(), "learner": learner.pid, "simulator": sim.pid,
                "exploiters": {ln.exploiter: ln.process.pid for ln in [*exploiters.lanes, *league_exploiters.lanes]
                               if ln.process is not None and ln.exploiter}}
        if pids != state.get("pids"):
            atomic_write_text(run_dir / "processes.json", json.dumps(pids))
            state["pids"] = pids

    eval_rng = random.Random(cfg.run.seed + 5)
    learner = start_learner(resume_from)
    sim = start_sim()
    learner_restarts = sim_restarts = 0

    def restart_sim(why: str) -> None:
        """A new simulator process (and fleet) in place of a dead or hung one: the slots
        it was writing are freed, its Showdown servers reaped, its counters kept, and
        each exploiter lane told again what to play once the new one listens."""
        nonlocal sim
        if sim.is_alive():
            sim.kill()
        sim.join(5)
        reaped = reap_strays(run_dir / "showdown", grace_s=10.0)
        freed = w.exp.reclaim_writing() + [s for h in w.lanes for s in h["exp"].reclaim_writing()]
        mon.on_sim_restart()
        print(f"[coordinator] simulator {why}; restart {sim_restarts} (freed {len(freed)} slots, "
              f"killed {len(reaped)} stray Showdown processes)", flush=True)
        log.warning("simulator %s; restart %d", why, sim_restarts)
        mon.tb.add_scalar("run/sim_restarts", sim_restarts, mon.updates)
        sim = start_sim()
        state["resend_lanes"] = True

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
                    league_exploiters.tick()
                    league.log(mon.tb, mon.updates)
                    if now - state.get("payoff_logged", 0.0) > 60.0:
                        league.log_payoff(mon.tb, mon.updates)
                        state["payoff_logged"] = now
                    update_portfolio(now)
                    lg = cfg.league
                    if lg.eval_every_s > 0 and state.get("sim_up") and now - state.get("eval_at", t0) >= lg.eval_every_s:
                        state["eval_at"] = now
                        pairs = league.eval_round(lg.eval_pairs, eval_rng)
                        if pairs:
                            w.control.send(msgpack.packb({"cmd": "eval_round", "pairs": pairs, "games": lg.eval_games}))
                    sel = cfg.league.selection
                    if sel.enabled and mon.updates - state.get("selected_at", 0) >= sel.every_updates:
                        state["selected_at"] = mon.updates
                        try:
                            retired, clones = league.select(mon.updates, cfg.run.seed)
                            if retired or clones:
                                print(f"[coordinator] selection: retired {retired}, cloned {clones}", flush=True)
                        except NashError as e:
                            print(f"selection skipped: {e}", file=sys.stderr)
                league.save()
                w.control.send(msgpack.packb({"cmd": "counters", "counters": mon.counters()}))
                w.control.send(msgpack.packb({"cmd": "league", "league": league.message()}))
                if state.get("sim_up") and not state.get("le_started"):  # the simulator listens by now
                    league_exploiters.start()
                    state["le_started"] = True
                elif state.get("sim_up") and state.pop("resend_lanes", False):  # a restarted one
                    exploiters.resend()
                    league_exploiters.resend()
                mon.queue_depth(w.exp.n_filled())
                write_pids()
                last_tick = now
            hung = learner.is_alive() and now - beats.get("learner", now) > cfg.run.heartbeat_timeout_s
            sim_hung = now - beats["sim"] > cfg.run.heartbeat_timeout_s
            if interrupted["flag"]:
                stop_reason = "interrupted"
            elif not sim.is_alive() or sim_hung:
                why = f"silent for {now - beats['sim']:.0f} s" if sim_hung else f"exited with code {sim.exitcode}"
                if sim_restarts >= cfg.run.max_sim_restarts:
                    print(f"simulator {why}; {sim_restarts} restarts already: stopping (resume=true continues the run)",
                          file=sys.stderr)
                    stop_reason = "component failed"
                else:
                    sim_restarts += 1
                    restart_sim(why)
            elif not learner.is_alive() or hung:
                why = (f"silent for {now - beats['learner']:.0f} s" if hung
                       else f"exited with code {learner.exitcode}")
                if learner_restarts >= cfg.run.max_learner_restarts:
                    print(f"main learner {why}; {learner_restarts} restarts already: stopping", file=sys.stderr)
                    stop_reason = "component failed"
                else:
                    if hung:
                        learner.kill()
                    learner.join(5)
                    learner_restarts += 1
                    resume = ckpt.latest_checkpoint(run_dir)
                    print(f"[coordinator] main learner {why}; restart {learner_restarts} from "
                          f"{resume or 'its initial weights'}", flush=True)
                    log.warning("main learner %s; restarting from %s", why, resume)
                    mon.tb.add_scalar("run/learner_restarts", learner_restarts, mon.updates)
                    learner = start_learner(resume)
                    state["portfolio_acked"] = None  # tell the new one
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
        lanes = [*exploiters.lanes, *league_exploiters.lanes]
        for p in (sim, learner, *[ln.process for ln in lanes if ln.process is not None]):
            p.join(timeout=2 if p.is_alive() else 0)
            if p.is_alive():
                p.terminate()
                p.join(5)
        if reap_strays(run_dir / "showdown", grace_s=5.0):  # servers of a simulator that could not stop them
            print("[coordinator] killed stray Showdown processes at shutdown", file=sys.stderr)
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)
        league.dirty = True
        league.save()
        if cfg.league.enabled:
            league.log_payoff(mon.tb, mon.updates)
        mon.line(force=True)
        mon.tb.close()
        w.zctx.destroy(linger=0)
        shutil.rmtree(w.sock_dir, ignore_errors=True)
    for e in errors:
        print(e, file=sys.stderr)
    out = mon.summary(stop_reason, state["checkpoint"], len(errors), league)
    out["learner_restarts"] = learner_restarts
    out["sim_restarts"] = sim_restarts
    if cfg.learner.portfolio.size > 0:
        out["portfolio"] = state.get("portfolio_acked") or []
    if le_cfg.enabled:
        out["league_exploiters_frozen"] = league_exploiters.frozen
        out["league_exploiter_resets"] = league_exploiters.resets
    return out


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


class JobFailed(RuntimeError):
    """A --multirun job that failed: Hydra records it and runs the next job (sys.exit
    would get past Hydra and end the sweep); the sweep exits non-zero at the end."""


def _fail(code: int, text: str) -> None:
    hc = HydraConfig.get()
    if hc.mode == RunMode.MULTIRUN:
        print(f"job {hc.job.num} failed ({text}); the sweep goes on", file=sys.stderr, flush=True)
        raise JobFailed(f"job {hc.job.num} ({hc.runtime.output_dir}): {text}")
    sys.exit(code)


@hydra.main(version_base=None, config_path="../conf", config_name="config")
def main(dcfg: DictConfig) -> None:
    # ---- 1. compose + verify
    try:
        cfg = to_object(dcfg)
        verify(cfg)
        summary = run(cfg, Path(HydraConfig.get().runtime.output_dir))
    except (ConfigError, ShowdownSetupError, TeamPoolError, ckpt.CheckpointError) as e:
        print(f"error: {e}", file=sys.stderr)
        _fail(2, "bad input")
        return
    print(json.dumps(summary), flush=True)
    if summary["errors"] or summary["stop_reason"] == "component failed":
        _fail(1, f"stop reason {summary['stop_reason']!r}, {summary['errors']} errors")


if __name__ == "__main__":
    main()
