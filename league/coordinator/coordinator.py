"""The coordinator's decisions, as one object with one call: ``step(now, reports,
health) -> actions``.

It reads what the components reported (league/transport/messages.py) and the
processes' health, keeps the league (registry, payoff, ratings, snapshots), the
exploiters' lifecycles, the portfolio, evaluation rounds and selection, and decides:
which commands the components get, whether a component is restarted, when the run
stops. It starts no process and opens no socket: the supervisor carries its actions
out, and a unit test can drive it with hand-made reports.

Actions returned by ``step``: transport commands (``Stop``, ``Counters``, ``LeagueView``,
exploiter lane commands, ...) to publish as they are, and:
  - ``RestartSim(why, shard)``: kill what is left of simulator shard ``shard``, start a new one;
  - ``RestartLearner(why, resume, kill)``: the main learner again, from ``resume``.
Exploiter learners are started through the ``spawn_exploiter(lane, member,
league_exploiter)`` callable given at construction (it returns a process handle with
``is_alive()`` and ``exitcode``).
"""

from __future__ import annotations

import logging
import random
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from league import checkpoint as ckpt
from league.coordinator.reports import EvalReports
from league.population.exploiters import (
    ExploiterConfig,
    ExploiterManager,
    LeagueExploiterConfig,
    LeagueExploiterManager,
)
from league.population.league import LeagueManager
from league.population.nash import NashError
from league.transport.messages import (
    Checkpoint,
    Counters,
    Error,
    EvalRound,
    ExploiterResult,
    Final,
    Heartbeat,
    Hold,
    LeagueView,
    PairResults,
    PortfolioAck,
    ResetDone,
    SetPortfolio,
    Stats,
    Update,
    shard_name,
    shard_of,
)

log = logging.getLogger("league.coordinator")

TICK_S = 2.0  # league bookkeeping and the commands that follow it, every TICK_S
HOLD_RESEND_S = 10.0  # a due run waiting for an exploiter repeats its Hold this often


@dataclass
class RestartSim:
    why: str
    shard: int = 0  # which simulator shard (0 when there is one)


@dataclass
class RestartLearner:
    why: str
    resume: str | None
    kill: bool  # hung (alive but silent): kill it first


@dataclass
class SimHealth:
    alive: bool = True
    exitcode: int | None = None
    pid: int = 0


@dataclass
class Health:
    """What the placement sees of the main learner and the simulator shards: one
    simulator in the ``sim_*`` fields, or every shard in ``shards`` (shard k at k)."""

    sim_alive: bool = True
    sim_exitcode: int | None = None
    sim_pid: int = 0
    learner_alive: bool = True
    learner_exitcode: int | None = None
    learner_pid: int = 0  # the main learner's process (0: unknown, its reports are not checked)
    shards: list | None = None  # [SimHealth] of every shard; None: the one in sim_*

    def sims(self) -> list:
        return self.shards if self.shards is not None else [SimHealth(self.sim_alive, self.sim_exitcode, self.sim_pid)]


@dataclass
class _State:
    checkpoint: str | None = None
    sim_up: bool = False  # shard 0 (it plays the lanes and evaluation rounds) sent stats: it listens to commands
    le_started: bool = False
    resend_lanes: bool = False
    portfolio: list[tuple[str, str]] | None = None  # (member id, checkpoint) of each reference
    portfolio_weights: list[float] | None = None
    portfolio_acked: list | None = None
    portfolio_at: float = -1e9
    eval_at: float = 0.0  # the last evaluation round (at first: the coordinator's start)
    selected_at: int = 0
    payoff_logged: float = 0.0
    last_tick: float = -1e9
    due_since: float | None = None
    held_at: int | None = None  # the main learner's updates when the run fell due and it was told to hold
    hold_sent: float = -1e9
    beats: dict = field(default_factory=dict)
    # the learner and shards heard from since they (re)started: until then a component is
    # starting (compiling, Showdown coming up) and run.start_timeout_s is its silence limit
    started: set = field(default_factory=set)
    # per simulator shard: (its battle count, when that count last changed) - the
    # progress watchdog: a shard that reports but finishes nothing is hung too
    progress: dict = field(default_factory=dict)


class Coordinator:
    def __init__(
        self,
        cfg,
        run_dir: Path,
        monitor,
        league: LeagueManager,
        team_objs: list,
        spawn_exploiter: Callable,
        *,
        t0: float,
        resume_from: str | None = None,
        print_fn=print,
        schedule: dict | None = None,
    ):
        """``schedule``: ``self.counters()["schedule"]`` of the checkpoint resumed from."""
        self.cfg, self.run_dir, self.mon, self.league = cfg, run_dir, monitor, league
        self.t0 = t0
        self.st = _State(checkpoint=str(resume_from) if resume_from else None, eval_at=t0)
        if resume_from:  # the league state stored in a checkpoint names the one before it
            self._main_at(str(resume_from))
        self.shards = cfg.sim.shards
        self.st.beats = {"learner": t0, **{shard_name(k): t0 for k in range(self.shards)}}
        self.st.progress = {shard_name(k): (None, t0) for k in range(self.shards)}
        self.outbox: list = []
        self.errors: list[str] = []
        self.learner_restarts = self.sim_restarts = 0
        self.learner_pid = 0  # from the placement's Health: reports signed "learner" must come from it
        self.final_seen = False  # the main learner's Final arrived (its final checkpoint)
        self.foreign = 0  # reports dropped for coming from another process than the one they name
        self.stop_reason: str | None = None
        self.print = print_fn
        self.eval_rng = random.Random(cfg.run.seed + 5)
        self.reports = EvalReports(run_dir, cfg.league.diversity)  # strength and diversity, each evaluation round
        lg = cfg.league
        ex_cfg = lg.exploiters if lg.enabled else ExploiterConfig()
        le_cfg = lg.league_exploiters if lg.enabled else LeagueExploiterConfig()
        self.exploiters = ExploiterManager(
            ex_cfg, league, team_objs, cfg.run.seed, lambda lane, m: spawn_exploiter(lane, m, False), self.outbox.append
        )
        self.league_exploiters = LeagueExploiterManager(
            le_cfg,
            league,
            cfg.run.seed,
            lambda lane, m: spawn_exploiter(lane, m, True),
            self.outbox.append,
            lane_offset=len(self.exploiters.lanes) if ex_cfg.enabled else 0,
        )
        if schedule:
            self.exploiters.next_spawn = int(schedule.get("exploiters_next_spawn", self.exploiters.next_spawn))
            self.exploiters.spawned = int(schedule.get("exploiters_spawned", 0))
            self.st.selected_at = int(schedule.get("selected_at", 0))

    def counters(self) -> dict:
        """What the main learner stores in each checkpoint: the run's counters, the league
        (registry, ratings, payoff) and the coordinator's schedule as they are now, so a
        resume from that checkpoint continues a league consistent with it."""
        return {
            **self.mon.counters(),
            "league": self.league.state(),
            "schedule": {
                "exploiters_next_spawn": self.exploiters.next_spawn,
                "exploiters_spawned": self.exploiters.spawned,
                "selected_at": self.st.selected_at,
            },
        }

    # ------------------------------------------------------------------ the one call
    def step(self, now: float, reports: list, health: Health) -> list:
        """Take ``reports`` ((Envelope, report) pairs), decide; return the actions."""
        pids = [h.pid for h in health.sims()]
        self.learner_pid = health.learner_pid
        for env, msg in reports:
            self._on_report(env, msg, pids, now)
        if now - self.st.last_tick > TICK_S:
            self._tick(now)
            self.st.last_tick = now
        self._check_processes(now, health)
        out, self.outbox[:] = list(self.outbox), []
        return out

    def take(self, reports: list, sim_pids: int | list, now: float) -> None:
        """Reports only, no decision (shutdown: the final checkpoints still count).
        ``sim_pids``: the simulator's pid, or every shard's (shard k at k)."""
        pids = sim_pids if isinstance(sim_pids, list) else [sim_pids]
        for env, msg in reports:
            self._on_report(env, msg, pids, now)

    def lanes(self) -> list:
        return [*self.exploiters.lanes, *self.league_exploiters.lanes]

    # ------------------------------------------------------------------ reports
    def _on_report(self, env, msg, sim_pids: list, now: float) -> None:
        who, st, mon = env.sender, self.st, self.mon
        shard = shard_of(who)
        if shard is not None and (shard >= len(sim_pids) or env.pid != sim_pids[shard]):
            return  # queued by a simulator that died since: its counters are already folded in
        if who == "learner" and self.learner_pid and env.pid != self.learner_pid:
            self.foreign += 1  # not from the learner's process: a forged Final would stop the run
            self.print(
                f"dropped a {type(msg).__name__} report signed 'learner' from pid {env.pid}, not the "
                f"learner's ({self.learner_pid}); {self.foreign} so far",
                file=sys.stderr,
            )
            return
        st.started.add(who)
        if who.startswith("learner:"):  # an exploiter's learner: its own metrics, never fatal
            self._on_exploiter_report(who.split(":", 1)[1], msg)
        elif isinstance(msg, Heartbeat):
            st.beats[who] = now
        elif isinstance(msg, PortfolioAck) and who == "learner":
            st.portfolio_acked = msg.members
        elif isinstance(msg, Update):
            st.beats[who] = now
            mon.on_update(msg.metrics)
        elif isinstance(msg, Stats):
            st.sim_up = st.sim_up or shard == 0
            st.beats[who] = now
            if st.progress.get(who, (None,))[0] != msg.stats.get("battles"):
                st.progress[who] = (msg.stats.get("battles"), now)
            mon.on_sim(msg.stats, shard)
            self.league.on_results(msg.stats.get("results", []))
        elif isinstance(msg, PairResults):  # a league exploiter's games, or an evaluation round's
            self.league.on_results(msg.results, agent=msg.agent)
        elif isinstance(msg, ExploiterResult):
            self.exploiters.on_eval(msg.id, msg.wins, msg.games)
        elif isinstance(msg, (Checkpoint, Final)) and msg.path:
            st.checkpoint = msg.path
            self.league.on_checkpoint(msg.path, msg.updates)
            if isinstance(msg, Final):  # the learner's last word: what a killed one reported and lost is not counted
                mon.updates = msg.updates
                self.final_seen = True
        elif isinstance(msg, Error) and who == "learner":  # restarted (or the run stops) by _check_processes
            self.print(f"main learner failed:\n{msg.text}", file=sys.stderr)
        elif isinstance(msg, Error):  # the simulator: it exits next and is restarted (or the run stops)
            self.errors.append(f"{who}: {msg.text}")
            self.print(f"simulator failed:\n{msg.text}", file=sys.stderr)

    def _on_exploiter_report(self, mid: str, msg) -> None:
        tb = self.mon.tb
        if isinstance(msg, Update):
            for k, v in msg.metrics.items():
                if isinstance(v, (int, float)):
                    tb.add_scalar(f"learner/{mid}/{k}", v, int(msg.metrics["updates"]))
        elif isinstance(msg, Checkpoint):
            self.league_exploiters.on_checkpoint(mid, msg.path, msg.updates)
        elif isinstance(msg, Final) and msg.path is not None:  # (a learner's Final names its checkpoint)
            self.exploiters.on_learner_final(mid, msg.path)
            self.league_exploiters.on_checkpoint(mid, msg.path, msg.updates)
        elif isinstance(msg, ResetDone):
            tb.add_scalar(f"learner/{mid}/reset", 1, msg.updates)
        elif isinstance(msg, Error):
            self.print(f"exploiter {mid} failed (the run goes on):\n{msg.text}", file=sys.stderr)

    # ------------------------------------------------------------------ the league tick
    def _tick(self, now: float) -> None:
        """League bookkeeping, then tell the others: counters (learner), league (simulator)."""
        cfg, st, mon, league = self.cfg, self.st, self.mon, self.league
        if cfg.league.enabled:
            league.maybe_snapshot(mon.updates)
            self.exploiters.tick(mon.updates)
            self.league_exploiters.tick()
            league.log(mon.tb, mon.updates)
            if now - st.payoff_logged > 60.0:
                league.log_payoff(mon.tb, mon.updates)
                st.payoff_logged = now
            self._portfolio(now)
            self._evaluation_round(now)
            self._selection()
        league.save()
        self.outbox.append(Counters(self.counters()))
        self.outbox.append(LeagueView(league.message()))
        if st.sim_up and not st.le_started:  # the simulator listens by now
            self.league_exploiters.start()
            st.le_started = True
        elif st.sim_up and st.resend_lanes:  # a restarted one
            st.resend_lanes = False
            self.exploiters.resend()
            self.league_exploiters.resend()

    def _portfolio(self, now: float) -> None:
        """Portfolio R-NaD: revise the main learner's references every update_every_s;
        resend them until the learner (maybe just restarted) acknowledges them."""
        pf, st = self.cfg.learner.portfolio, self.st
        if pf.size <= 0:
            return
        if now - st.portfolio_at >= pf.update_every_s:
            st.portfolio_at = now
            try:
                refs, weights = self.league.portfolio(pf.size, pf.strategy)
            except NashError as e:
                self.print(f"portfolio not revised: {e}", file=sys.stderr)
                refs, weights = st.portfolio or [], st.portfolio_weights or []
            if refs and (refs, weights) != (st.portfolio, st.portfolio_weights):
                st.portfolio, st.portfolio_weights = refs, weights
                text = (
                    ", ".join(f"{mid} {w:.3f}" for (mid, _), w in zip(refs, weights)) + " (Nash-weighted mixture)"
                    if weights
                    else ", ".join(mid for mid, _ in refs) + " (the closest by KL)"
                )
                self.mon.tb.add_text("league/portfolio", text, self.mon.updates)
                self.print(f"[coordinator] portfolio ({pf.strategy}): {text}", flush=True)
                st.portfolio_acked = None  # the weights may change alone: tell the learner
        if st.portfolio and st.portfolio_acked != [mid for mid, _ in st.portfolio]:
            self.outbox.append(SetPortfolio("learner", st.portfolio, st.portfolio_weights or []))

    def _evaluation_round(self, now: float) -> None:
        lg, st = self.cfg.league, self.st
        if lg.eval_every_s > 0 and st.sim_up and now - st.eval_at >= lg.eval_every_s:
            st.eval_at = now
            pairs = self.league.eval_round(lg.eval_pairs, self.eval_rng, lg.eval_previous)
            if pairs:
                self.outbox.append(EvalRound(pairs, lg.eval_games))
            self.reports.on_round(self.league, self.mon.tb, self.mon.updates)  # what the rounds so far played

    def _selection(self) -> None:
        sel, updates = self.cfg.league.selection, self.mon.updates
        if sel.enabled and updates - self.st.selected_at >= sel.every_updates:
            self.st.selected_at = updates
            try:
                retired, clones = self.league.select(updates, self.cfg.run.seed)
                if retired or clones:
                    self.print(f"[coordinator] selection: retired {retired}, cloned {clones}", flush=True)
            except NashError as e:
                self.print(f"selection skipped: {e}", file=sys.stderr)

    # ------------------------------------------------------------------ supervision and stop rules
    def _check_processes(self, now: float, h: Health) -> None:
        cfg, st = self.cfg, self.st
        if self.stop_reason is not None:
            return
        if self.mon.diverged is not None:  # its weights are noise from here on: no restart, no waiting
            self.stop_reason = "diverged"
            return

        def limit(name: str) -> float:  # a component not heard from since its (re)start is starting
            t = cfg.run.heartbeat_timeout_s
            return t if name in st.started else max(t, cfg.run.start_timeout_s)

        def silent(name: str) -> str:
            return f"silent for {now - st.beats[name]:.0f} s" + (
                "" if name in st.started else " since it started (run.start_timeout_s)"
            )

        learner_hung = h.learner_alive and now - st.beats["learner"] > limit("learner")
        failed = False
        for k, sh in enumerate(h.sims()):
            name = shard_name(k)
            sim_hung = now - st.beats[name] > limit(name)
            # alive and reporting, but no battle finished for run.stall_s (while the learner,
            # whose back-pressure can hold battles, is up): a stalled simulator
            idle = now - st.progress.get(name, (None, now))[1]
            stalled = (
                bool(cfg.run.stall_s)
                and name in st.started
                and h.learner_alive
                and not learner_hung
                and idle > cfg.run.stall_s
            )
            if sh.alive and not sim_hung and not stalled:
                continue
            failed = True
            why = (
                silent(name)
                if sim_hung
                else f"no battle finished for {idle:.0f} s"
                if sh.alive
                else f"exited with code {sh.exitcode}"
            )
            if stalled and not sim_hung:
                self.mon.tb.add_scalar("run/sim_stalls", 1, self.mon.updates)
            what = "simulator" if self.shards == 1 else f"simulator shard {k}"
            if self.sim_restarts >= cfg.run.max_sim_restarts:
                self.print(
                    f"{what} {why}; {self.sim_restarts} restarts already: stopping (resume=true continues the run)",
                    file=sys.stderr,
                )
                self.stop_reason = "component failed"
                return
            self.sim_restarts += 1
            self.mon.on_sim_restart(k)
            self.mon.tb.add_scalar("run/sim_restarts", self.sim_restarts, self.mon.updates)
            st.beats[name] = now
            st.progress[name] = (None, now)
            st.started.discard(name)
            if k == 0:  # the lanes' and evaluation rounds' shard: tell the new one
                st.sim_up, st.resend_lanes = False, True
            self.outbox.append(RestartSim(f"{why}; restart {self.sim_restarts}", k))
        if failed:  # one kind of restart per tick: the learner's check and the stop rules wait for the next
            return
        if not h.learner_alive or learner_hung:
            why = silent("learner") if learner_hung else f"exited with code {h.learner_exitcode}"
            if self.learner_restarts >= cfg.run.max_learner_restarts:
                self.print(f"main learner {why}; {self.learner_restarts} restarts already: stopping", file=sys.stderr)
                self.stop_reason = "component failed"
                return
            self.learner_restarts += 1
            resume = ckpt.latest_checkpoint(self.run_dir)
            # the updates since that checkpoint died with the learner: count from where it resumes
            self.mon.updates = ckpt.checkpoint_step(resume) if resume is not None else 0
            if resume is not None:
                self._main_at(str(resume))
            self.mon.tb.add_scalar("run/learner_restarts", self.learner_restarts, self.mon.updates)
            st.portfolio_acked, st.beats["learner"] = None, now  # tell the new one
            st.started.discard("learner")
            self.outbox.append(
                RestartLearner(
                    f"{why}; restart {self.learner_restarts}",
                    None if resume is None else str(resume),
                    kill=learner_hung,
                )
            )
        else:
            self.stop_reason = self._due(now)

    def _due(self, now: float) -> str | None:
        cfg = self.cfg
        due = None
        if cfg.run.max_updates and self.mon.updates >= cfg.run.max_updates:
            due = "max_updates"
        elif cfg.run.max_minutes and (now - self.t0) / 60 >= cfg.run.max_minutes:
            due = "max_minutes"
        if due and self.exploiters.pending(self.mon.updates):  # let an exploiter in flight finish, within bounds
            st = self.st
            st.due_since = st.due_since or now
            if now - st.due_since < cfg.league.exploiters.finish_timeout_s:
                # the main agent's budget is spent: its learner holds meanwhile (told again
                # now and then: a restarted learner, or one that missed it, holds too)
                if st.held_at is None:
                    st.held_at = self.mon.updates
                    self.print(
                        f"[coordinator] {due} reached at {self.mon.updates} updates: the main learner holds while "
                        f"an exploiter in flight finishes (at most league.exploiters.finish_timeout_s "
                        f"{cfg.league.exploiters.finish_timeout_s:.0f} s)",
                        flush=True,
                    )
                if now - st.hold_sent >= HOLD_RESEND_S:
                    st.hold_sent = now
                    self.outbox.append(Hold())
                due = None
        return due

    def interrupt(self) -> None:
        self.stop_reason = self.stop_reason or "interrupted"

    def settle(self) -> None:
        """After shutdown: a main learner that wrote no final checkpoint (hung, or killed at
        the stop) lost its updates since its last one: the count and the checkpoint are
        that one's, where a resume continues. The registry names each training member's
        newest file (league exploiters too)."""
        self.league_exploiters.point_at_latest()
        if self.stop_reason == "diverged":
            # the learner diverged: the run ends at the last checkpoint before the first bad
            # update; the later ones (NaN or runaway weights, the final one among them) move
            # to checkpoints/diverged/, so the summary, the registry and a resume name it
            bad = self.mon.diverged["update"] if self.mon.diverged else 0
            moved = ckpt.set_aside_from(self.run_dir, bad)
            self._end_at_latest(
                f"the learner diverged at update {bad}",
                f"; {len(moved)} later checkpoint(s) moved to {ckpt.checkpoint_dir(self.run_dir) / 'diverged'}",
            )
        elif not self.final_seen:
            self._end_at_latest("the main learner wrote no final checkpoint")

    def _end_at_latest(self, why: str, more: str = "") -> None:
        """The count, the summary's checkpoint and the registry's main: the run directory's
        newest checkpoint's."""
        last = ckpt.latest_checkpoint(self.run_dir)
        self.mon.updates = ckpt.checkpoint_step(last) if last is not None else 0
        self.st.checkpoint = str(last) if last is not None else None
        if last is not None:
            self._main_at(str(last))
        self.print(
            f"[coordinator] {why}; the run ends at {last or 'no checkpoint'} ({self.mon.updates} updates){more}",
            file=sys.stderr,
        )

    def _main_at(self, path: str) -> None:
        """The registry's main member names the checkpoint training goes on from (or ended
        at) when the learner's own report of it never came: killed before it was sent,
        stopped with it unsent, or a resume whose stored league names an older, pruned one.
        Only the name: what a snapshot freezes still waits for the learner's own report (a
        resumed run stopped at once writes the checkpoint's league, exactly)."""
        self.league.registry.get("main").checkpoint = path
        self.league.dirty = True

    def summary(self) -> dict:
        out = self.mon.summary(self.stop_reason, self.st.checkpoint, len(self.errors), self.league)
        out["learner_restarts"] = self.learner_restarts
        out["sim_restarts"] = self.sim_restarts
        out["foreign_reports"] = self.foreign
        if self.st.held_at is not None:
            out["main_held_at_updates"] = self.st.held_at
        if self.cfg.league.enabled:
            out.update(self.reports.summary(self.league))
        if self.cfg.learner.portfolio.size > 0:
            out["portfolio"] = self.st.portfolio_acked or []
            if self.st.portfolio_weights:
                out["portfolio_weights"] = self.st.portfolio_weights
        if self.league_exploiters.cfg.enabled:
            out["league_exploiters_frozen"] = self.league_exploiters.frozen
            out["league_exploiter_resets"] = self.league_exploiters.resets
        return out
