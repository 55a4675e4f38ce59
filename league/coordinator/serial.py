"""Serial placement (``run.serial=true``): the same components in one process. The
simulator plays in an asyncio loop, the learner steps inside it whenever a batch of
trajectories is ready (battles pause meanwhile), and the same Coordinator decides
(snapshots, evaluation rounds, selection, portfolio, stop rules) from the same reports,
handed over in memory instead of sockets. Exploiters need learner processes: verify
refuses them in serial mode."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import torch

from league import checkpoint as ckpt
from league.battle.dex import data_of
from league.coordinator.coordinator import Coordinator, Health
from league.coordinator.monitor import Monitor
from league.learn.learner import Learner
from league.model.net import PolicyValueNet
from league.population.league import LeagueManager
from league.transport.experience import SharedExperience
from league.transport.messages import (
    Checkpoint,
    Counters,
    Envelope,
    Heartbeat,
    LeagueView,
    PortfolioAck,
    SetPortfolio,
    Stats,
    Update,
)


class _Inbox:
    """Reports handed over in memory; ``send`` is what the simulator's lanes call."""

    def __init__(self, sender: str):
        self.env, self.items = Envelope(sender, os.getpid()), []

    def send(self, msg) -> None:
        self.items.append((self.env, msg))


def _no_exploiters(lane, member, league_exploiter):
    raise RuntimeError("exploiters need learner processes: run.serial=true runs without them")


class _SerialLearner:
    """The main learner inside the simulator's process: steps whenever a batch is ready."""

    def __init__(self, cfg, run_dir: Path, resume_from, counters: dict, device: str, inbox: _Inbox):
        self.cfg, self.run_dir, self.inbox = cfg, run_dir, inbox
        self.L = Learner(cfg.learner, cfg.model, device=device, seed=cfg.run.seed, data=data_of(cfg.showdown.format))
        ckpt.restore_learner(self.L, cfg, resume_from)
        self.exp = SharedExperience(cfg.learner.batch_size, cfg.sim.t_max)  # same batching code as the processes
        self.counters = dict(counters)
        self.ready: list = []
        self.version = 1

    def flat(self) -> torch.Tensor:
        return torch.nn.utils.parameters_to_vector([p.detach().cpu() for p in self.L.net.parameters()])

    def save(self, tag: str) -> None:
        L = self.L
        st = ckpt.learner_state(L, self.counters, self.cfg, self.version)
        path = ckpt.save_checkpoint(self.run_dir, st, L.steps, keep=self.cfg.learner.keep_checkpoints)
        self.inbox.send(Checkpoint(str(path), L.steps, tag))

    def learn(self, policy) -> None:
        L, bs = self.L, self.cfg.learner.batch_size
        while len(self.ready) >= bs:
            take, self.ready = self.ready[:bs], self.ready[bs:]
            for i, traj in enumerate(take):
                self.exp.write(i, traj)
            metrics = L.step(self.exp.batch(list(range(len(take)))))
            self.version += 1
            policy.load_weights(self.flat(), self.version)
            lag = sum(self.version - 1 - t.version for t in take) / len(take)
            metrics.update(updates=L.steps, policy_lag=float(lag))
            self.inbox.send(Update(metrics))
            if L.steps % self.cfg.learner.checkpoint_every == 0:
                self.save("periodic")

    def act(self, actions: list, matchmaker, lanes) -> None:
        """The coordinator's actions: the learner's own, then the simulator's."""
        for a in actions:
            if isinstance(a, Counters):
                self.counters.update(a.counters)
            elif isinstance(a, SetPortfolio):
                self.L.set_portfolio(
                    [
                        (mid, ckpt.load_policy_net(path, format_id=self.cfg.showdown.format, name=mid))
                        for mid, path in a.members
                    ],
                    a.weights,
                )
                self.inbox.send(PortfolioAck([mid for mid, _ in a.members]))
            else:
                if isinstance(a, LeagueView):
                    matchmaker.update(a.league)
                lanes.apply(a)


def run_serial(
    cfg, run_dir: Path, teams: list[str], team_objs: list, resume_from, start_counters: dict, device: str, view=None
) -> dict:
    from league.showdown import make_fleet
    from league.sim.policy import PolicyServer
    from league.sim.sim_proc import ExploiterLanes, make_matchmaker, policy_settings
    from league.sim.simulator import Simulator

    learner_in, sim_in = _Inbox("learner"), _Inbox("sim")
    ln = _SerialLearner(cfg, run_dir, resume_from, start_counters, device, learner_in)
    mon = Monitor(run_dir, cfg, start_counters, view)
    league = LeagueManager(cfg.league, run_dir, resume=cfg.resume, state=start_counters.get("league"))
    mon.league = league
    coord = Coordinator(
        cfg,
        run_dir,
        mon,
        league,
        team_objs,
        _no_exploiters,
        t0=time.monotonic(),
        resume_from=resume_from,
        schedule=start_counters.get("schedule"),
    )

    with make_fleet(cfg.sim.backend, cfg.sim.servers, run_dir) as fleet:
        policy = PolicyServer(
            PolicyValueNet(cfg.model, data=data_of(cfg.showdown.format)),
            "main",
            seed=cfg.run.seed + 1,
            **policy_settings(cfg),
        )
        policy.load_weights(ln.flat(), ln.version)
        matchmaker = make_matchmaker(cfg, policy, team_objs)
        matchmaker.update(league.message())

        async def main() -> None:
            stop = asyncio.Event()
            sim = Simulator(
                cfg.sim,
                fleet,
                policy,
                teams,
                lambda t: ln.ready.append(t) or True,
                battle_format=cfg.showdown.format,
                seed=cfg.run.seed,
                on_stats=lambda s: sim_in.send(Stats(s)),
                matchmaker=matchmaker,
                eval_history=start_counters.get("eval_window"),
            )
            lanes = ExploiterLanes(cfg, sim, [], sim_in)

            async def coordinate() -> None:
                while coord.stop_reason is None:
                    await asyncio.sleep(0.05)
                    ln.learn(policy)
                    learner_in.send(Heartbeat(ln.L.steps))
                    reports = learner_in.items + sim_in.items
                    learner_in.items, sim_in.items = [], []
                    ln.act(coord.step(time.monotonic(), reports, Health(sim_pid=os.getpid())), matchmaker, lanes)
                    mon.line()
                stop.set()
                for k in list(lanes.tasks):
                    lanes.stop(k)

            await asyncio.gather(sim.run(stop), coordinate())

        try:
            asyncio.run(main())
        except KeyboardInterrupt:
            coord.interrupt()
        ln.counters.update(coord.counters())
        ln.save("final")
        coord.take(learner_in.items, os.getpid(), time.monotonic())
    league.dirty = True
    league.save()
    mon.line(force=True)
    mon.tb.close()
    return coord.summary()
