"""The processes of a run, placed on this machine: the main learner, the simulator shards
(``sim.shards``, each with its Showdown fleet) and the exploiters' learners. Starts them, reports their health to
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
from typing import cast

from league import checkpoint as ckpt
from league.atomic import atomic_write_text, remove_stale
from league.coordinator.coordinator import Health, RestartLearner, RestartSim, SimHealth
from league.learn.learner_proc import learner_main
from league.seeding import stable_seed
from league.showdown import reap_strays
from league.sim.sim_proc import shard_dir, shard_seed, sim_main
from league.transport.experience import slot_range
from league.transport.messages import Counters, Stop
from league.transport.wiring import ProcessLike

log = logging.getLogger("league.supervisor")


def sim_config(cfg, shard: int, resumed: int | None, starts: int):
    """Shard ``shard``'s config: its seed (``shard_seed``), and a seed of its own when
    started again (``starts`` > 0) or on a resume (``resumed``: the checkpoint's update)."""
    if shard == 0 and resumed is None and not starts:
        return cfg
    out = copy.deepcopy(cfg)
    out.run.seed = shard_seed(cfg.run.seed, shard)
    if resumed is not None or starts:
        out.run.seed = stable_seed(out.run.seed, "sim", resumed, starts)
    return out


def exploiter_job(cfg, run_dir: Path, lane, member, league_exploiter: bool):
    """An exploiter learner's (config, directory, checkpoint to resume from, learner_main
    keyword arguments), whatever the placement. A main exploiter starts from
    ``league.exploiters.init`` and stops after ``train_updates``, without regularisation;
    a league exploiter resumes from its own last checkpoint when it has one and can be reset."""
    ecfg = copy.deepcopy(cfg)
    mdir = Path(run_dir) / "exploiters" / member.id
    ecfg.learner.keep_checkpoints = 2
    ecfg.run.init_checkpoint = lane.init_checkpoint  # main exploiters: league.exploiters.init (None: scratch)
    ecfg.run.seed = cfg.run.seed + 1000 + lane.index
    if league_exploiter:
        le = cfg.league.league_exploiters
        ecfg.learner.batch_size = le.batch_size
        ecfg.learner.checkpoint_every = le.checkpoint_every
        return ecfg, mdir, ckpt.latest_checkpoint(mdir), {"resettable": True}
    ex = cfg.league.exploiters
    ecfg.learner.rnad.eta = 0.0  # main exploiters learn without regularisation
    ecfg.learner.batch_size = ex.batch_size
    ecfg.learner.checkpoint_every = ex.train_updates
    return ecfg, mdir, None, {"max_updates": ex.train_updates}


def _stopped(p) -> bool:
    """A child process that is alive but stopped (SIGSTOP, state T)."""
    try:
        with open(f"/proc/{p.pid}/stat") as f:
            return p.is_alive() and f.read().rsplit(")", 1)[1].split()[0] in ("T", "t")
    except (OSError, TypeError, IndexError):
        return False


class Supervisor:
    def __init__(self, cfg, run_dir: Path, wiring, teams: list, device: str):  # teams: the pool's Team objects
        self.cfg, self.run_dir, self.w, self.teams, self.device = cfg, run_dir, wiring, teams, device
        self.learner: ProcessLike  # the main learner's process, once started
        self.sims: list[ProcessLike] = []  # shard k's process at k
        self._pids: dict | None = None
        self._resumed: int | None = None
        self._sim_starts = [0] * cfg.sim.shards
        self._last_chores = 0.0

    # ------------------------------------------------------------------ starting
    def start(self, resume_from: str | None, resumed_updates: int = 0, eval_history: dict | None = None) -> None:
        self._resumed = resumed_updates if resume_from else None
        self._sim_starts = [0] * self.cfg.sim.shards
        self.learner = self._start_learner(resume_from)
        self.sims = [self._start_sim(k, eval_history) for k in range(self.cfg.sim.shards)]

    def _start_learner(self, resume: str | None) -> ProcessLike:
        w = self.w
        p = w.ctx.Process(
            target=learner_main,
            name="learner-main",
            args=(self.cfg, str(self.run_dir), w.addr, w.exp, w.weights, self.device, resume),
            kwargs={"parent": os.getpid()},
        )
        p.start()
        return p

    def _start_sim(self, k: int, eval_history: dict | None) -> ProcessLike:
        """Shard ``k``. The simulator draws (matchmaking, teams, actions) from ``run.seed``
        (shard k > 0 from its own, ``shard_seed``); one started again (restart, resume) gets
        a seed of its own, derived from that, the checkpoint's update and its restart count:
        it does not replay the first one's draws, and the same run resumed from the same
        checkpoint draws the same. Shard 0 plays the exploiter lanes."""
        w, cfg = self.w, sim_config(self.cfg, k, self._resumed, self._sim_starts[k])
        self._sim_starts[k] += 1
        p = w.ctx.Process(
            target=sim_main,
            name="simulator" if k == 0 else f"simulator-{k}",
            args=(cfg, str(self.run_dir), w.addr, w.exp, w.weights, self.teams, w.lanes if k == 0 else None),
            kwargs={"eval_history": eval_history, "shard": k, "parent": os.getpid()},
        )
        p.start()
        return p

    def spawn_exploiter(self, lane, member, league_exploiter: bool) -> ProcessLike:
        """Start the learner process of an exploiter on its lane (``exploiter_job``)."""
        ecfg, mdir, resume, kw = exploiter_job(self.cfg, self.run_dir, lane, member, league_exploiter)
        h = self.w.lanes[lane.index]
        addr = {**self.w.addr, "experience": h["addr"]}
        p = self.w.ctx.Process(
            target=learner_main,
            name=f"learner-{member.id}",
            args=(ecfg, str(mdir), addr, h["exp"], h["weights"], self.device, None if resume is None else str(resume)),
            kwargs={"name": f"learner:{member.id}", "parent": os.getpid(), **kw},
        )
        p.start()
        return p

    # ------------------------------------------------------------------ watching
    def health(self) -> Health:
        return Health(
            learner_alive=self.learner.is_alive(),
            learner_exitcode=self.learner.exitcode,
            learner_pid=self.learner.pid or 0,
            shards=[SimHealth(p.is_alive(), p.exitcode, p.pid or 0) for p in self.sims],
        )

    def execute(self, actions: list, coord) -> None:
        for a in actions:
            if isinstance(a, RestartSim):
                self._restart_sim(a.shard, a.why, coord.mon.eval_window())
            elif isinstance(a, RestartLearner):
                self._restart_learner(a)
            else:
                self.w.send(a)
        now = time.monotonic()
        if now - self._last_chores > 2.0:
            self._last_chores = now
            coord.mon.queue_depth(self.w.exp.n_filled())
            self._write_pids(coord.lanes())

    def _restart_sim(self, k: int, why: str, eval_history: dict) -> None:
        """A new process (and fleet) for shard ``k`` in place of a dead or hung one: the
        slots it was writing are freed, its Showdown servers reaped."""
        p, shards = self.sims[k], self.cfg.sim.shards
        if p.is_alive():
            p.kill()
        p.join(5)
        reaped = reap_strays(shard_dir(self.run_dir, k, shards) / "showdown", grace_s=10.0)
        freed = self.w.exp.reclaim_writing(*slot_range(self.w.exp.n_slots, k, shards))
        if k == 0:
            freed += [s for h in self.w.lanes for s in h["exp"].reclaim_writing()]
        what = "simulator" if shards == 1 else f"simulator shard {k}"
        print(
            f"[coordinator] {what} {why} (freed {len(freed)} slots, killed {len(reaped)} stray Showdown processes)",
            flush=True,
        )
        log.warning("%s %s", what, why)
        self.sims[k] = self._start_sim(k, eval_history)

    def _restart_learner(self, a: RestartLearner) -> None:
        if a.kill:
            self.learner.kill()
        self.learner.join(5)
        print(f"[coordinator] main learner {a.why} from {a.resume or 'its initial weights'}", flush=True)
        log.warning("main learner %s; restarting from %s", a.why, a.resume)
        self.learner = self._start_learner(a.resume)

    def _write_pids(self, lanes) -> None:
        """RUN_DIR/processes.json: the run's process ids, for operators (and tests)."""
        pids = {
            "main": os.getpid(),
            "learner": self.learner.pid,
            "simulator": self.sims[0].pid,
            "shards": [p.pid for p in self.sims],
            "exploiters": {ln.exploiter: ln.process.pid for ln in lanes if ln.process is not None and ln.exploiter},
        }
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
        while (self.learner.is_alive() or any(p.is_alive() for p in self.sims)) and time.monotonic() < deadline:
            for p in (self.learner, *self.sims):
                if _stopped(p):  # SIGSTOPped: it cannot stop cleanly, nor answer; waiting is for nothing
                    print(f"[coordinator] {p.name} is stopped (SIGSTOP): killed", file=sys.stderr, flush=True)
                    p.kill()
            w.send(Stop())
            coord.take(w.receive(100), [p.pid for p in self.sims], time.monotonic())
            self.learner.join(timeout=0.1)
            for p in self.sims:
                p.join(timeout=0.1)
        # the exploiters' learners: processes too (this placement's spawn_exploiter started them)
        exploiters = [cast(ProcessLike, ln.process) for ln in coord.lanes() if ln.process is not None]
        for p in (*self.sims, self.learner, *exploiters):
            p.join(timeout=2 if p.is_alive() else 0)
            if p.is_alive():
                p.terminate()
                p.join(5)
            if p.is_alive():  # a stopped (SIGSTOP) or wedged process does not act on SIGTERM
                p.kill()
                p.join(5)
        coord.take(w.receive(300), [p.pid for p in self.sims], time.monotonic())  # the last reports (Final)
        for stale in remove_stale(self.run_dir):  # a component killed mid-write (every writer is gone now)
            log.warning("removed %s, a file a killed component left half written", stale)
        reaped = [
            reap_strays(shard_dir(self.run_dir, k, self.cfg.sim.shards) / "showdown", grace_s=5.0)
            for k in range(self.cfg.sim.shards)
        ]
        if any(reaped):  # servers of a simulator that could not stop them
            print("[coordinator] killed stray Showdown processes at shutdown", file=sys.stderr)
