"""The processes of a run, placed on this machine: the main learner, the simulator (with
its Showdown fleet) and the exploiters' learners. Starts them, reports their health to
the coordinator, carries out its restarts and commands, and stops everything at the end.
"""

from __future__ import annotations

import copy
import json
import logging
import os
import sys
import time
from pathlib import Path

from league import checkpoint as ckpt
from league.coordinator.coordinator import Health, RestartLearner, RestartSim
from league.learn.learner_proc import learner_main
from league.seeding import stable_seed
from league.showdown import reap_strays
from league.sim.sim_proc import sim_main
from league.teams.repo import atomic_write_text
from league.transport.messages import Counters, Stop

log = logging.getLogger("league.supervisor")


class Supervisor:
    def __init__(self, cfg, run_dir: Path, wiring, teams: list, device: str):  # teams: the pool's Team objects
        self.cfg, self.run_dir, self.w, self.teams, self.device = cfg, run_dir, wiring, teams, device
        self.learner = self.sim = None
        self._pids: dict | None = None
        self._resumed: int | None = None
        self._sim_starts = 0
        self._last_chores = 0.0

    # ------------------------------------------------------------------ starting
    def start(self, resume_from: str | None, resumed_updates: int = 0, eval_history: dict | None = None) -> None:
        self._resumed = resumed_updates if resume_from else None
        self._sim_starts = 0
        self.learner = self._start_learner(resume_from)
        self.sim = self._start_sim(eval_history)

    def _start_learner(self, resume: str | None):
        w = self.w
        p = w.ctx.Process(target=learner_main, name="learner-main",
                          args=(self.cfg, str(self.run_dir), w.addr, w.exp, w.weights, self.device, resume))
        p.start()
        return p

    def _start_sim(self, eval_history: dict | None):
        """The simulator draws (matchmaking, teams, actions) from ``run.seed``; a simulator
        started again (restart, resume) gets a seed of its own, derived from the run's, the
        checkpoint's update and the restart count: it does not replay the first one's draws,
        and the same run resumed from the same checkpoint draws the same."""
        w, cfg = self.w, self.cfg
        if self._resumed is not None or self._sim_starts:
            cfg = copy.deepcopy(cfg)
            cfg.run.seed = stable_seed(self.cfg.run.seed, "sim", self._resumed, self._sim_starts)
        self._sim_starts += 1
        p = w.ctx.Process(target=sim_main, name="simulator",
                          args=(cfg, str(self.run_dir), w.addr, w.exp, w.weights, self.teams, w.lanes),
                          kwargs={"eval_history": eval_history})
        p.start()
        return p

    def spawn_exploiter(self, lane, member, league_exploiter: bool):
        """Start the learner process of an exploiter on its lane (a league exploiter
        resumes from its own last checkpoint when it has one)."""
        cfg = self.cfg
        ecfg = copy.deepcopy(cfg)
        mdir = self.run_dir / "exploiters" / member.id
        ecfg.learner.keep_checkpoints = 2
        ecfg.run.init_checkpoint = lane.init_checkpoint  # main exploiters: league.exploiters.init (None: scratch)
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
        h = self.w.lanes[lane.index]
        addr = {**self.w.addr, "experience": h["addr"]}
        p = self.w.ctx.Process(target=learner_main, name=f"learner-{member.id}",
                               args=(ecfg, str(mdir), addr, h["exp"], h["weights"], self.device,
                                     None if resume is None else str(resume)),
                               kwargs={"name": f"learner:{member.id}", **kw})
        p.start()
        return p

    # ------------------------------------------------------------------ watching
    def health(self) -> Health:
        return Health(sim_alive=self.sim.is_alive(), sim_exitcode=self.sim.exitcode, sim_pid=self.sim.pid,
                      learner_alive=self.learner.is_alive(), learner_exitcode=self.learner.exitcode)

    def execute(self, actions: list, coord) -> None:
        for a in actions:
            if isinstance(a, RestartSim):
                self._restart_sim(a.why, coord.mon.eval_window())
            elif isinstance(a, RestartLearner):
                self._restart_learner(a)
            else:
                self.w.send(a)
        now = time.monotonic()
        if now - self._last_chores > 2.0:
            self._last_chores = now
            coord.mon.queue_depth(self.w.exp.n_filled())
            self._write_pids(coord.lanes())

    def _restart_sim(self, why: str, eval_history: dict) -> None:
        """A new simulator process (and fleet) in place of a dead or hung one: the slots
        it was writing are freed, its Showdown servers reaped."""
        if self.sim.is_alive():
            self.sim.kill()
        self.sim.join(5)
        reaped = reap_strays(self.run_dir / "showdown", grace_s=10.0)
        freed = self.w.exp.reclaim_writing() + [s for h in self.w.lanes for s in h["exp"].reclaim_writing()]
        print(f"[coordinator] simulator {why} (freed {len(freed)} slots, killed {len(reaped)} stray Showdown "
              "processes)", flush=True)
        log.warning("simulator %s", why)
        self.sim = self._start_sim(eval_history)

    def _restart_learner(self, a: RestartLearner) -> None:
        if a.kill:
            self.learner.kill()
        self.learner.join(5)
        print(f"[coordinator] main learner {a.why} from {a.resume or 'its initial weights'}", flush=True)
        log.warning("main learner %s; restarting from %s", a.why, a.resume)
        self.learner = self._start_learner(a.resume)

    def _write_pids(self, lanes) -> None:
        """RUN_DIR/processes.json: the run's process ids, for operators (and tests)."""
        pids = {"main": os.getpid(), "learner": self.learner.pid, "simulator": self.sim.pid,
                "exploiters": {ln.exploiter: ln.process.pid for ln in lanes if ln.process is not None and ln.exploiter}}
        if pids != self._pids:
            atomic_write_text(self.run_dir / "processes.json", json.dumps(pids))
            self._pids = pids

    # ------------------------------------------------------------------ stopping
    def shutdown(self, coord) -> None:
        """Stop the simulator and the learner (it writes its final checkpoint; its report
        still reaches the coordinator), then every exploiter learner; reap strays."""
        w = self.w
        w.send(Counters(coord.counters()))
        deadline = time.monotonic() + 90
        while (self.learner.is_alive() or self.sim.is_alive()) and time.monotonic() < deadline:
            w.send(Stop())
            coord.take(w.receive(100), self.sim.pid, time.monotonic())
            self.learner.join(timeout=0.1)
            self.sim.join(timeout=0.1)
        for p in (self.sim, self.learner, *[ln.process for ln in coord.lanes() if ln.process is not None]):
            p.join(timeout=2 if p.is_alive() else 0)
            if p.is_alive():
                p.terminate()
                p.join(5)
        if reap_strays(self.run_dir / "showdown", grace_s=5.0):  # servers of a simulator that could not stop them
            print("[coordinator] killed stray Showdown processes at shutdown", file=sys.stderr)
