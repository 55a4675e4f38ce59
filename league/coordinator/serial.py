"""Serial placement: the simulator and the main learner in one process (no exploiters,
no league rounds yet), for debugging and tiny machines: ``run.serial=true``."""

from __future__ import annotations

import time
from pathlib import Path

from league import checkpoint as ckpt
from league.coordinator.monitor import Monitor
from league.model.net import PolicyValueNet
from league.population.league import LeagueManager
from league.sim.experience import SharedExperience


def run_serial(cfg, run_dir: Path, teams: list[str], resume_from, start_counters: dict, device: str) -> dict:
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
