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
from league.sim.policy import NeuralPlayer, PolicyServer, Trajectory
from league.sim.simulator import Simulator

log = logging.getLogger(__name__)


def make_matchmaker(cfg, policy: PolicyServer, teams: list[str]) -> Matchmaker:
    sampler_cfg = cfg.league.sampler if cfg.league.enabled else type(cfg.league.sampler)(strategy="self_play")
    return Matchmaker(policy, teams, OpponentSampler(sampler_cfg, seed=cfg.run.seed + 7), seed=cfg.run.seed + 11,
                      cache_size=cfg.league.cache_size)


class ExploiterLanes:
    """The simulator's side of the exploiter lanes: a training stream (exploiter learning
    against its frozen victim, with its one team) and then an evaluation match."""

    def __init__(self, cfg, sim: Simulator, lanes: list[dict], io: ComponentSockets):
        self.cfg, self.sim, self.lanes, self.io = cfg, sim, lanes, io
        self.tasks: dict[int, tuple[asyncio.Event, asyncio.Task]] = {}
        self.push = []
        for lane in lanes:
            sock = io.ctx.socket(zmq.PUSH)
            sock.connect(lane["addr"])
            self.push.append(sock)
        self.dropped = 0

    def _sink(self, k: int):
        lane, sock = self.lanes[k], self.push[k]

        def sink(traj: Trajectory) -> None:
            if len(traj) > lane["exp"].t_max:
                return
            try:
                slot = lane["free"].get_nowait()
            except queue.Empty:
                self.dropped += 1  # its learner is behind: exploiter data is not worth pausing for
                return
            lane["exp"].write(slot, traj)
            sock.send(msgpack.packb(SlotMessage(slot, traj.agent, traj.version, len(traj), traj.reward, "victim").to_wire()))

        return sink

    def stop(self, k: int) -> None:
        ev_task = self.tasks.pop(k, None)
        if ev_task is not None:
            ev_task[0].set()

    def train(self, k: int, mid: str, victim_ckpt: str, team: str) -> None:
        from league.checkpoint import load_policy_net

        self.stop(k)
        ex = self.cfg.league.exploiters
        learner_policy = PolicyServer(PolicyValueNet(self.cfg.model), mid, seed=hash(mid) & 0xFFFF)
        victim = PolicyServer(load_policy_net(victim_ckpt), "victim", seed=(hash(mid) + 1) & 0xFFFF)
        stop = asyncio.Event()
        weights = self.lanes[k]["weights"]
        sink = self._sink(k)

        async def poll():
            while not stop.is_set():
                got = weights.read_if_newer(learner_policy.version)
                if got is not None:
                    learner_policy.load_weights(*got)
                await asyncio.sleep(0.5)

        async def go():
            await asyncio.gather(
                poll(),
                self.sim.play_pair(
                    lambda **kw: NeuralPlayer(policy=learner_policy, sink=sink, agent=mid, opponent="victim", **kw),
                    lambda **kw: NeuralPlayer(policy=victim, **kw),
                    None, [team], stop=stop, concurrency=ex.concurrency,
                ),
            )

        self.tasks[k] = (stop, asyncio.ensure_future(go()))

    def evaluate(self, k: int, mid: str, checkpoint: str, victim_ckpt: str, team: str) -> None:
        from league.checkpoint import load_policy_net

        self.stop(k)
        ex = self.cfg.league.exploiters
        me = PolicyServer(load_policy_net(checkpoint), mid, seed=3)
        victim = PolicyServer(load_policy_net(victim_ckpt), "victim", seed=4)
        stop = asyncio.Event()

        async def go():
            r = await self.sim.play_pair(
                lambda **kw: NeuralPlayer(policy=me, **kw), lambda **kw: NeuralPlayer(policy=victim, **kw),
                ex.eval_games, [team], stop=None, concurrency=ex.concurrency,
            )
            self.io.send("exploiter_eval", id=mid, lane=k, wins=r.p1_wins + 0.5 * r.ties, games=r.battles)

        self.tasks[k] = (stop, asyncio.ensure_future(go()))


def sim_main(cfg, run_dir: str, addr: dict, exp, free, weights, teams: list[str], lanes: list[dict] | None = None) -> None:
    exit_with_parent()
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s sim %(name)s %(levelname)s %(message)s")
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
                sim = Simulator(
                    cfg.sim, fleet, policy, teams, sink,
                    battle_format=cfg.showdown.format, seed=cfg.run.seed,
                    weights_source=weights.read_if_newer,
                    on_stats=lambda s: send("stats", stats=s),
                    matchmaker=matchmaker,
                )
                ex = ExploiterLanes(cfg, sim, lanes or [], io)

                async def listen() -> None:
                    while not stop.is_set():
                        for m in io.commands():
                            if m["cmd"] == "stop":
                                stop.set()
                            elif m["cmd"] == "league":
                                matchmaker.update(m["league"])
                            elif m["cmd"] == "exploiter_train":
                                ex.train(m["lane"], m["id"], m["victim"], m["team"])
                            elif m["cmd"] == "exploiter_eval":
                                ex.evaluate(m["lane"], m["id"], m["checkpoint"], m["victim"], m["team"])
                            elif m["cmd"] == "exploiter_stop":
                                ex.stop(m["lane"])
                        await asyncio.sleep(0.2)
                    for k in list(ex.tasks):
                        ex.stop(k)
                    # poke-env message tasks still waiting when the loop closes are expected
                    logging.getLogger("asyncio").setLevel(logging.CRITICAL)

                await asyncio.gather(listen(), sim.run(stop))

            asyncio.run(run())
        send("final")
    except Exception:
        send("error", text=traceback.format_exc())
        raise
    finally:
        io.close()
