"""The simulator process: a fleet, the Simulator, and its wiring.

In:  weights (SharedWeights), free slots (queue), control (pyzmq SUB: ``stop``).
Out: trajectories into shared-memory slots + one msgpack message each (pyzmq PUSH to
     the learner); stats (pyzmq PUSH to the main process).
"""

from __future__ import annotations

import asyncio
import logging
import queue
import traceback

import msgpack
import torch
import zmq

from league.ipc import ComponentSockets, exit_with_parent
from league.model.net import PolicyValueNet
from league.showdown import ShowdownFleet
from league.population.sampling import OpponentSampler
from league.sim.experience import SlotMessage
from league.sim.matchmaker import Matchmaker
from league.sim.policy import PolicyServer, Trajectory
from league.sim.simulator import Simulator

log = logging.getLogger(__name__)


def make_matchmaker(cfg, policy: PolicyServer, teams: list[str]) -> Matchmaker:
    sampler_cfg = cfg.league.sampler if cfg.league.enabled else type(cfg.league.sampler)(strategy="self_play")
    return Matchmaker(policy, teams, OpponentSampler(sampler_cfg, seed=cfg.run.seed + 7), seed=cfg.run.seed + 11,
                      cache_size=cfg.league.cache_size)


def sim_main(cfg, run_dir: str, addr: dict, exp, free, weights, teams: list[str]) -> None:
    exit_with_parent()
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s sim %(levelname)s %(message)s")
    torch.set_num_threads(1)
    io = ComponentSockets(addr, "sim")
    send = io.send
    push = io.ctx.socket(zmq.PUSH)
    push.connect(addr["experience"])
    try:
        with ShowdownFleet(cfg.sim.servers, run_dir) as fleet:
            policy = PolicyServer(PolicyValueNet(cfg.model), "main", seed=cfg.run.seed + 1)
            matchmaker = make_matchmaker(cfg, policy, teams)

            def sink(traj: Trajectory) -> bool:
                try:
                    slot = free.get_nowait()
                except queue.Empty:
                    return False  # learner behind: keep it pending, players pause past max_pending
                exp.write(slot, traj)
                msg = SlotMessage(slot, traj.agent, traj.version, len(traj), traj.reward, traj.opponent)
                push.send(msgpack.packb(msg.to_wire()))
                return True

            async def run() -> None:
                stop = asyncio.Event()

                async def listen() -> None:
                    while not stop.is_set():
                        for m in io.commands():
                            if m["cmd"] == "stop":
                                stop.set()
                            elif m["cmd"] == "league":
                                matchmaker.update(m["league"])
                        await asyncio.sleep(0.2)

                sim = Simulator(
                    cfg.sim, fleet, policy, teams, sink,
                    battle_format=cfg.showdown.format, seed=cfg.run.seed,
                    weights_source=weights.read_if_newer,
                    on_stats=lambda s: send("stats", stats=s),
                    matchmaker=matchmaker,
                )
                await asyncio.gather(listen(), sim.run(stop))

            asyncio.run(run())
        send("final")
    except Exception:
        send("error", text=traceback.format_exc())
        raise
    finally:
        io.close()
