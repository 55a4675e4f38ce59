"""The learner process: wraps :class:`~league.learn.learner.Learner` with its wiring.

In:  SlotMessages (pyzmq PULL) naming filled shared-memory slots; commands
     (league/transport/messages.py): Stop, Counters (the run's counters and league, stored
     in checkpoints), Reset and SetPortfolio addressed to this learner's name.
Out: weights (SharedWeights, version++ every ``publish_every`` updates), freed slots
     (slot states in shared memory), reports to the coordinator: Update, Checkpoint,
     Heartbeat, PortfolioAck, ResetDone, Final, Error.
"""

from __future__ import annotations

import copy
import logging
import time

import numpy as np
import torch
import zmq

from league import checkpoint as ckpt
from league import memtrace
from league.atomic import remove_stale
from league.battle.dex import data_of
from league.learn.learner import Learner, StepMetrics
from league.proftrace import profiled
from league.transport.experience import agent_key
from league.transport.messages import (
    BadMessage,
    Checkpoint,
    Counters,
    Final,
    Heartbeat,
    Hold,
    PortfolioAck,
    Reset,
    ResetDone,
    SetPortfolio,
    SlotMessage,
    Stop,
    Update,
)
from league.transport.wiring import ComponentSockets, exit_with_parent

log = logging.getLogger(__name__)


def take_batch(ready: list[tuple[int, int, int]], bs: int, pair: bool) -> tuple[list, list]:
    """The next batch from ``ready`` ((slot, version, battle key), oldest first): the
    ``bs`` oldest; with ``pair`` (rnad.opponent_kl) a taken trajectory's self-play
    partner waiting further back comes along, so a batch may hold ``bs + 1``."""
    take, rest = ready[:bs], ready[bs:]
    if not pair:
        return take, rest
    keys = [k for _, _, k in take if k]
    for key in keys:
        if sum(1 for _, _, k in take if k == key) == 1:
            i = next((i for i, r in enumerate(rest) if r[2] == key), None)
            if i is not None and len(take) <= bs:
                take.append(rest.pop(i))
    return take, rest


RATE_WINDOW_S = 1.0  # samples_per_s: measured over at least this long


class LearnerProcess:
    """One learner's loop: experience in (slot messages + shared-memory slots), commands
    in, updates, weights, checkpoints and reports out."""

    def __init__(
        self,
        cfg,
        run_dir: str,
        io: ComponentSockets,
        pull,
        exp,
        weights,
        device: str,
        resume_from: str | None,
        name: str,
        max_updates: int,
        resettable: bool,
    ):
        self.cfg, self.run_dir, self.io, self.pull, self.exp, self.weights = cfg, run_dir, io, pull, exp, weights
        self.name, self.max_updates = name, max_updates
        self.L = Learner(cfg.learner, cfg.model, device=device, seed=cfg.run.seed, data=data_of(cfg.showdown.format))
        self.initial = None
        if resettable:  # the initial weights are the fresh (or init_checkpoint) ones, also on resume
            ckpt.restore_learner(self.L, cfg, None)
            self.initial = copy.deepcopy(self.L.state_dict())
        # the only writer of its checkpoints: a predecessor killed mid-write left a half
        remove_stale(ckpt.checkpoint_dir(run_dir))
        self.counters = ckpt.restore_learner(self.L, cfg, resume_from)
        self.agent = name.split(":", 1)[1] if ":" in name else "main"
        self.owner = agent_key(self.agent)
        self.version = weights.publish(self.L.net, self.owner)
        # (slot, behaviour version, battle key); a (re)started learner first takes what is already filled
        self.ready: list[tuple[int, int, int]] = []
        self.queued: set[int] = set()
        self.bad_messages = 0  # experience messages that were none (dropped)
        mine, stale = exp.claim_filled(self.agent)
        self._queue(mine)
        if mine:
            log.info("%s: %d filled slots waiting from before its start", name, len(mine))
        if stale:
            log.info("%s: freed %d filled slots left by the lane's previous learner", name, stale)
        self.stop = False
        self.held = False  # the run is due and waits for an exploiter: no more updates (Hold)
        self.t_last = time.monotonic()
        self.samples_since: float = 0  # samples learned since the rate's last window (the metrics are floats)
        self.rate = 0.0  # samples per second over the last window of >= RATE_WINDOW_S
        # (StepMetrics, updates, policy lag, weights version) of the last step, not yet reported
        self.unread: tuple[StepMetrics, int, float, int] | None = None
        self.warm = time.monotonic() if cfg.learner.compile else None

    def _queue(self, slots) -> None:
        for s in slots:
            if s not in self.queued:
                self.ready.append((s, int(self.exp.version[s]), int(self.exp.battle[s])))
                self.queued.add(s)

    def save(self, tag: str) -> str:
        L = self.L
        state = ckpt.learner_state(L, self.counters, self.cfg, self.version)
        path = ckpt.save_checkpoint(self.run_dir, state, L.steps, keep=self.cfg.learner.keep_checkpoints)
        self.io.send(Checkpoint(str(path), L.steps, tag))
        return str(path)

    def on_command(self, msg) -> None:
        L, name = self.L, self.name
        if isinstance(msg, Stop):
            self.stop = True
        elif isinstance(msg, Counters):
            self.counters.update(msg.counters)
        elif isinstance(msg, Hold) and msg.to == name and not self.held:
            self.held = True
            log.info("%s: holds at update %d (the run is due and waits for an exploiter)", name, L.steps)
        elif isinstance(msg, SetPortfolio) and msg.to == name:
            refs = [
                (mid, ckpt.load_policy_net(path, format_id=self.cfg.showdown.format, name=mid))
                for mid, path in msg.members
            ]
            L.set_portfolio(refs, msg.weights)
            log.info(
                "%s: portfolio %s, regularising toward %s",
                name,
                ", ".join(f"{mid} {w:.3f}" for (mid, _), w in zip(refs, msg.weights))
                if msg.weights
                else ", ".join(mid for mid, _ in refs),
                "their Nash-weighted mixture" if msg.weights else "the closest by KL",
            )
            self.io.send(PortfolioAck([mid for mid, _ in refs]))
        elif isinstance(msg, Reset) and msg.to == name and self.initial is not None:
            L.reset(self.initial)
            self.version = self.weights.publish(L.net, self.owner)
            log.info("%s reset to its initial weights at update %d", name, L.steps)
            self.io.send(ResetDone(L.steps, self.version))

    def on_experience(self) -> None:
        while self.pull.poll(0):
            try:
                m = SlotMessage.from_wire(self.pull.recv())
            except BadMessage as e:  # counted and dropped: the learner goes on
                self.bad_messages += 1
                log.warning(
                    "%s: dropped an experience message that is none (%s); %d so far", self.name, e, self.bad_messages
                )
                continue
            if m.agent != self.agent:  # for the lane's previous learner
                continue
            if m.slot < self.exp.n_slots and self.exp.is_filled(m.slot):  # late duplicates: ignored
                self._queue([m.slot])

    def heartbeat(self) -> None:
        self.io.send(Heartbeat(self.L.steps))
        # a simulator killed between filling a slot and announcing it: take it anyway
        self._queue(self.exp.claim_filled(self.agent)[0])

    def learn(self) -> None:
        """Update while full batches wait. A step's metrics are read (and reported) after the
        next step is queued, or when the batches run out: on a GPU the learner does not
        wait for the device to log while it has work."""
        cfg, L, exp = self.cfg, self.L, self.exp
        if self.held:  # free what fills without learning from it: battles go on finishing
            slots = [s for s, _, _ in self.ready]
            exp.release(slots)
            self.queued.difference_update(slots)
            self.ready = []
            return
        while len(self.ready) >= cfg.learner.batch_size and not self.stop:
            take, self.ready = take_batch(self.ready, cfg.learner.batch_size, cfg.learner.rnad.opponent_kl)
            slots = [s for s, _, _ in take]
            batch = exp.batch(slots)
            exp.release(slots)
            self.queued.difference_update(slots)
            if self.warm is not None:  # compile before the first real update (learner.compile)
                L.warm_up(batch)
                log.info("%s: warm-up (compile) %.1f s", self.name, time.monotonic() - self.warm)
                self.warm = None
            for _ in range(cfg.learner.epochs):  # each gradient step on the batch is an update
                step = L.step_async(batch)
                lag = float(np.mean([self.version - v for _, v, _ in take]))
                if L.steps % cfg.learner.publish_every == 0:
                    self.version = self.weights.publish(L.net, self.owner)
                self._report()
                self.unread = (step, L.steps, lag, self.version)
                if L.steps % cfg.learner.checkpoint_every == 0:
                    self._report()  # a checkpoint's update is reported before it
                    self.save("periodic")
                if self.max_updates and L.steps >= self.max_updates:
                    self.stop = True
                    break
        self._report()

    def _report(self) -> None:
        """Send the last step's metrics, if not sent yet."""
        if self.unread is None:
            return
        step, updates, lag, version = self.unread
        self.unread = None
        metrics = step.get()
        now = time.monotonic()
        self.samples_since += metrics["samples"]
        if now - self.t_last >= RATE_WINDOW_S:  # a rate over >= 1 s: two steps reported back to
            # back (epochs > 1, a checkpoint's report) once gave rates 1,000x the true one
            self.rate = self.samples_since / (now - self.t_last)
            self.t_last, self.samples_since = now, 0
        metrics.update({"updates": updates, "policy_lag": lag, "weights_version": version, "samples_per_s": self.rate})
        self.io.send(Update(metrics))

    def run(self) -> None:
        poller = zmq.Poller()
        poller.register(self.pull, zmq.POLLIN)
        poller.register(self.io.control, zmq.POLLIN)
        last_beat = 0.0
        while not self.stop:
            for sock, _ in poller.poll(100):
                if sock is self.io.control:
                    for msg in self.io.commands():
                        self.on_command(msg)
                else:
                    self.on_experience()
            if time.monotonic() - last_beat > 5.0:
                self.heartbeat()
                last_beat = time.monotonic()
            self.learn()
        path = self.save("final")
        self.io.send(Final(path, self.L.steps))


def learner_main(
    cfg,
    run_dir: str,
    addr: dict,
    exp,
    weights,
    device: str,
    resume_from: str | None,
    name: str = "learner",
    max_updates: int = 0,
    resettable: bool = False,
    parent: int | None = None,
) -> None:
    """``name`` tags its messages ("learner" for the main agent, "learner:<id>" for an
    exploiter); ``max_updates`` > 0 makes it stop by itself after that many updates;
    ``resettable`` keeps the initial state for ``reset`` commands; ``parent``: the starting
    process's pid (exit_with_parent)."""
    exit_with_parent(parent)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s learner %(levelname)s %(message)s")
    torch.set_num_threads(1)
    memtrace.start(name.replace(":", "_"))
    with ComponentSockets(addr, name) as io:  # a failure goes out as Error
        pull = io.ctx.socket(zmq.PULL)
        pull.bind(addr["experience"])
        proc = LearnerProcess(cfg, run_dir, io, pull, exp, weights, device, resume_from, name, max_updates, resettable)
        with profiled(name.replace(":", "_")):  # LEAGUE_PROFILE=DIR: league/proftrace.py
            proc.run()
