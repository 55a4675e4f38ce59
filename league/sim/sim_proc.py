"""The simulator process: a fleet, the Simulator, and its wiring.

In:  weights (SharedWeights), free slots (slot states in SharedExperience), commands
     (league/transport/messages.py: Stop, LeagueView, EvalRound, the exploiter lane commands).
Out: trajectories into shared-memory slots + one SlotMessage each (pyzmq PUSH to the
     learner); reports to the coordinator: Stats, PairResults, ExploiterResult, Final, Error.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from pathlib import Path

import torch
import zmq

from league import memtrace
from league.battle.dex import data_of
from league.device import resolve_device
from league.model.net import PolicyValueNet
from league.population.sampling import OpponentSampler, TeamPairs
from league.proftrace import profiled
from league.seeding import stable_seed
from league.showdown import make_fleet
from league.sim.matchmaker import Matchmaker
from league.sim.policy import MatchmadePlayer, NeuralPlayer, PolicyServer
from league.sim.simulator import Simulator
from league.teams.repo import select_tag
from league.transport.data import Trajectory
from league.transport.experience import ExperienceSink, Lane, agent_key, slot_range
from league.transport.messages import (
    EvalRound,
    ExploiterEvaluate,
    ExploiterResult,
    ExploiterStop,
    ExploiterTrain,
    Final,
    LeagueExploiterTrain,
    LeagueView,
    PairResults,
    Stats,
    Stop,
    shard_name,
)
from league.transport.wiring import ComponentSockets, exit_with_parent

log = logging.getLogger(__name__)


def policy_settings(cfg) -> dict:
    """A PolicyServer's settings: batching (``sim.infer_batch`` / ``sim.infer_wait_ms``),
    device (``sim.device``) and compilation (``sim.compile``)."""
    return {
        "min_batch": cfg.sim.infer_batch,
        "max_wait_s": cfg.sim.infer_wait_ms / 1000.0,
        "device": resolve_device(cfg.sim.device, "sim.device"),
        "compile": cfg.sim.compile,
    }


def make_matchmaker(cfg, policy: PolicyServer, teams: list) -> Matchmaker:
    """The main agent's matchmaker; its battles draw both sides' teams (a member with a
    team of its own plays that) from ``teams`` (Team objects), or from the sub-pool
    ``league.sampler.team_tag`` of them."""
    sampler_cfg = cfg.league.sampler if cfg.league.enabled else type(cfg.league.sampler)(strategy="self_play")
    packed = [t.packed for t in select_tag(teams, cfg.league.sampler.team_tag)]
    s = cfg.league.sampler
    pairs = (
        TeamPairs(
            len(packed), s.team_pfsp, s.team_uniform, s.team_prior_games, seed=cfg.run.seed + 13, window=s.team_window
        )
        if s.team_pfsp is not None
        else None
    )
    return Matchmaker(
        policy,
        packed,
        OpponentSampler(sampler_cfg, seed=cfg.run.seed + 7),
        seed=cfg.run.seed + 11,
        cache_size=cfg.league.cache_size,
        learn_from_members=cfg.league.learn_from_members,
        pairs=pairs,
    )


class LocalLane:
    """An exploiter lane's channels on this machine: trajectories into the lane's
    shared-memory slots (``shm_sink``: False when none is free) announced on its
    experience socket; weights from its SharedWeights."""

    def __init__(self, lane: dict, ctx: zmq.Context):
        self.weights = lane["weights"]
        push = ctx.socket(zmq.PUSH)
        push.connect(lane["addr"])
        self.put = shm_sink(lane["exp"], push)

    def read_if_newer(self, have: int, owner: int | None = None):
        return self.weights.read_if_newer(have, owner)


class ExploiterLanes:
    """The simulator's side of the exploiter lanes. A main exploiter's lane: a training
    stream (the exploiter learning against its frozen victim, with its one team), then an
    evaluation match. A league exploiter's lane: a training stream whose opponent is drawn
    per battle by its own matchmaker (PFSP over the league by its own win rates); results
    go to the main process as ``pair_results``."""

    def __init__(self, cfg, sim: Simulator, lanes: Sequence[Lane], io: ComponentSockets):
        """``lanes``: each lane's channels to its learner, objects with ``put(traj) -> bool``
        and ``read_if_newer(have, owner)`` (``LocalLane`` here, ``RemoteLane`` on Ray)."""
        self.cfg, self.sim, self.lanes, self.io = cfg, sim, lanes, io
        self.tasks: dict[int | str, tuple[asyncio.Event, asyncio.Task]] = {}  # by lane, and "eval"
        self.matchmakers: dict[str, Matchmaker] = {}  # league exploiter id -> its matchmaker
        self.league_view: dict | None = None
        self.dropped = 0

    def _sink(self, k: int):
        lane = self.lanes[k]

        def sink(traj: Trajectory) -> None:
            if len(traj) > self.cfg.sim.t_max:
                self.sim.stats.dropped["lane_too_long"] += 1
                return
            if not lane.put(traj):  # its learner is behind: exploiter data is not worth pausing for
                self.dropped += 1
                self.sim.stats.dropped["lane_full"] += 1

        return sink

    def apply(self, m) -> None:
        """Act on a coordinator command meant for the lanes (league view, evaluation round,
        exploiter jobs); other kinds are not theirs and are ignored."""
        if isinstance(m, LeagueView):
            self.update_league(m.league)
        elif isinstance(m, EvalRound):
            self.eval_round(m.pairs, m.games)
        elif isinstance(m, LeagueExploiterTrain):
            self.train_league(m.lane, m.id)
        elif isinstance(m, ExploiterTrain):
            self.train(m.lane, m.id, m.victim, m.team)
        elif isinstance(m, ExploiterEvaluate):
            self.evaluate(m.lane, m.id, m.checkpoint, m.victim, m.team)
        elif isinstance(m, ExploiterStop):
            self.stop(m.lane)

    def stop(self, k: int | str) -> None:
        """Stop lane ``k``'s stream (or "eval": the evaluation round)."""
        ev_task = self.tasks.pop(k, None)
        if ev_task is not None:
            ev_task[0].set()

    async def _first_weights(self, k: int, policy: PolicyServer, agent: str, stop: asyncio.Event) -> bool:
        """Wait until lane ``k``'s learner for ``agent`` has published (not the lane's
        previous learner): no battle is played with weights that are not its own."""
        lane, owner = self.lanes[k], agent_key(agent)
        while not stop.is_set():
            got = lane.read_if_newer(0, owner)
            if got is not None:
                policy.load_weights(*got)
                return True
            await asyncio.sleep(0.2)
        return False

    async def _follow_weights(self, k: int, policy: PolicyServer, agent: str, stop: asyncio.Event) -> None:
        lane, owner = self.lanes[k], agent_key(agent)
        while not stop.is_set():
            got = lane.read_if_newer(policy.version, owner)
            if got is not None:
                policy.load_weights(*got)
            await asyncio.sleep(0.5)

    def eval_round(self, pairs: list[dict], games: int) -> None:
        """Play ``games`` battles for each pair of frozen members, one pair after the
        other, in the background; each pair's results go out as ``pair_results``."""
        from league.checkpoint import load_policy_net
        from league.players import BASELINES

        if "eval" in self.tasks:
            return  # the previous round is still playing
        stop = asyncio.Event()

        def factory(side: dict, seed: int):
            if side["role"] in BASELINES and not side.get("checkpoint"):
                return BASELINES[side["role"]]
            pol = PolicyServer(
                load_policy_net(side["checkpoint"], format_id=self.cfg.showdown.format, name=side["id"]),
                side["id"],
                seed=seed,
                **policy_settings(self.cfg),
            )
            return lambda **kw: NeuralPlayer(policy=pol, **kw)

        async def go():
            try:
                for k, pair in enumerate(pairs):
                    if stop.is_set():
                        return
                    a, b = pair["a"], pair["b"]
                    r = await self.sim.play_pair(
                        factory(a, 2 * k),
                        factory(b, 2 * k + 1),
                        games,
                        [a["team"]] if a.get("team") else self.sim.teams,
                        stop=None,
                        concurrency=max(1, min(games, 8)),
                        p2_teams=[b["team"]] if b.get("team") else None,
                    )
                    results = [(b["id"], 1.0)] * r.p1_wins + [(b["id"], 0.0)] * r.p2_wins + [(b["id"], 0.5)] * r.ties
                    self.io.send(PairResults(a["id"], results))
            finally:
                self.tasks.pop("eval", None)

        self.tasks["eval"] = (stop, asyncio.ensure_future(go()))

    def update_league(self, league: dict) -> None:
        self.league_view = league
        for mid, mm in self.matchmakers.items():
            mm.update({**league, "win_rates": league.get("learners", {}).get(mid, {})})

    def train_league(self, k: int, mid: str) -> None:
        """A league exploiter's training stream, until stopped."""
        from league.population.sampling import SamplerConfig

        self.stop(k)
        le = self.cfg.league.league_exploiters
        seed = self.cfg.run.seed + 101 * (k + 1)
        policy = PolicyServer(
            PolicyValueNet(self.cfg.model, data=data_of(self.cfg.showdown.format)),
            mid,
            seed=seed,
            **policy_settings(self.cfg),
        )
        sampler = OpponentSampler(SamplerConfig(strategy="pfsp", pfsp_weighting=le.pfsp_weighting), seed=seed + 1)
        mm = Matchmaker(
            policy, self.sim.teams, sampler, seed=seed + 2, cache_size=self.cfg.league.cache_size, agent=mid
        )
        self.matchmakers[mid] = mm
        if self.league_view is not None:
            self.update_league(self.league_view)
        stop = asyncio.Event()
        sink = self._sink(k)

        async def report():
            while not stop.is_set():
                await asyncio.sleep(2.0)
                results = mm.drain_results()
                if results:
                    self.io.send(PairResults(mid, results))

        async def go():
            if not await self._first_weights(k, policy, mid, stop):
                self.matchmakers.pop(mid, None)
                return
            try:
                await asyncio.gather(
                    self._follow_weights(k, policy, mid, stop),
                    report(),
                    self.sim.play_pair(
                        lambda **kw: NeuralPlayer(policy=policy, sink=sink, agent=mid, opponent="league", **kw),
                        lambda **kw: MatchmadePlayer(matchmaker=mm, policy=policy, sink=sink, **kw),
                        None,
                        self.sim.teams,
                        stop=stop,
                        concurrency=le.concurrency,
                    ),
                )
            finally:
                self.matchmakers.pop(mid, None)

        self.tasks[k] = (stop, asyncio.ensure_future(go()))

    def train(self, k: int, mid: str, victim_ckpt: str, team: str) -> None:
        from league.checkpoint import load_policy_net

        self.stop(k)
        ex = self.cfg.league.exploiters
        fmt = self.cfg.showdown.format
        learner_policy = PolicyServer(
            PolicyValueNet(self.cfg.model, data=data_of(fmt)),
            mid,
            seed=stable_seed(self.cfg.run.seed, mid),
            **policy_settings(self.cfg),
        )
        victim = PolicyServer(
            load_policy_net(victim_ckpt, format_id=fmt, name="the victim"),
            "victim",
            seed=stable_seed(self.cfg.run.seed, mid, "victim"),
            **policy_settings(self.cfg),
        )
        stop = asyncio.Event()
        sink = self._sink(k)

        async def go():
            if not await self._first_weights(k, learner_policy, mid, stop):
                return
            await asyncio.gather(
                self._follow_weights(k, learner_policy, mid, stop),
                self.sim.play_pair(
                    lambda **kw: NeuralPlayer(policy=learner_policy, sink=sink, agent=mid, opponent="victim", **kw),
                    lambda **kw: NeuralPlayer(policy=victim, **kw),
                    None,
                    [team],
                    stop=stop,
                    concurrency=ex.concurrency,
                ),
            )

        self.tasks[k] = (stop, asyncio.ensure_future(go()))

    def evaluate(self, k: int, mid: str, checkpoint: str, victim_ckpt: str, team: str) -> None:
        from league.checkpoint import load_policy_net

        self.stop(k)
        ex = self.cfg.league.exploiters
        fmt = self.cfg.showdown.format
        me = PolicyServer(
            load_policy_net(checkpoint, format_id=fmt, name=mid), mid, seed=3, **policy_settings(self.cfg)
        )
        victim = PolicyServer(
            load_policy_net(victim_ckpt, format_id=fmt, name="the victim"),
            "victim",
            seed=4,
            **policy_settings(self.cfg),
        )
        stop = asyncio.Event()

        async def go():
            r = await self.sim.play_pair(
                lambda **kw: NeuralPlayer(policy=me, **kw),
                lambda **kw: NeuralPlayer(policy=victim, **kw),
                ex.eval_games,
                [team],
                stop=None,
                concurrency=ex.concurrency,
            )
            self.io.send(ExploiterResult(mid, k, r.p1_wins + 0.5 * r.ties, r.battles))

        self.tasks[k] = (stop, asyncio.ensure_future(go()))


def shard_dir(run_dir: str | Path, shard: int, shards: int) -> Path:
    """Where shard ``shard``'s fleet lives (its servers' logs and working directories):
    the run directory itself when there is one shard, else ``shards/<k>`` under it."""
    return Path(run_dir) if shards == 1 else Path(run_dir) / "shards" / str(shard)


def shard_seed(seed: int, shard: int) -> int:
    """Shard 0 draws from ``run.seed`` itself (one shard: as before shards), others from their own."""
    return seed if shard == 0 else stable_seed(seed, "shard", shard)


def shm_sink(exp, push, lo: int = 0, hi: int | None = None):
    """The trajectory sink into shared-memory slots ``lo:hi`` (this shard's own) plus one
    SlotMessage each on ``push``; False (kept pending) when none is free."""

    def sink(traj: Trajectory) -> bool:
        return exp.offer(traj, push, lo, hi)  # False: learner behind, kept pending; players pause past max_pending

    return sink


def run_simulator(
    cfg,
    fleet_dir: str | Path,
    io,
    sink: ExperienceSink,
    weights_source: Callable[[int], tuple[torch.Tensor, int] | None],
    teams: list,
    lanes: Sequence[Lane] | None = None,
    eval_history: dict | None = None,
) -> None:
    """A simulator's life, wherever it is placed: its fleet (under ``fleet_dir``), the
    main policy, the matchmaker, the Simulator and the exploiter lanes, acting on the
    commands that ``io`` receives until Stop. ``sink`` takes each learning trajectory
    (False: not yet), ``weights_source(have)`` returns newer (weights, version) or None;
    reports go out through ``io.send``. ``teams``: the pool's Team objects (their tags
    pick the curriculum's sub-pool). ``lanes``: the exploiter lanes' channels (shard 0:
    ``LocalLane`` or, on Ray, ``RemoteLane`` objects), None for the other shards."""
    send = io.send
    with make_fleet(cfg.sim.backend, cfg.sim.servers, fleet_dir) as fleet:
        policy = PolicyServer(
            PolicyValueNet(cfg.model, data=data_of(cfg.showdown.format)),
            "main",
            seed=cfg.run.seed + 1,
            **policy_settings(cfg),
        )
        matchmaker = make_matchmaker(cfg, policy, teams)
        teams = [t.packed for t in teams]

        async def run() -> None:
            stop = asyncio.Event()
            sim = Simulator(
                cfg.sim,
                fleet,
                policy,
                teams,
                sink,
                battle_format=cfg.showdown.format,
                open_team_sheets=cfg.showdown.open_team_sheets,
                seed=cfg.run.seed,
                weights_source=weights_source,
                on_stats=lambda s: send(Stats(s)),
                matchmaker=matchmaker,
                eval_history=eval_history,
            )
            ex = ExploiterLanes(cfg, sim, lanes or [], io)

            async def listen() -> None:
                while not stop.is_set():
                    for m in io.commands():
                        if isinstance(m, Stop):
                            stop.set()
                        elif lanes is not None:  # the shard that plays the lanes and evaluation rounds
                            if isinstance(m, LeagueView):
                                matchmaker.update(m.league)
                            ex.apply(m)
                        elif isinstance(m, LeagueView):
                            matchmaker.update(m.league)
                    await asyncio.sleep(0.2)
                for k in list(ex.tasks):
                    ex.stop(k)
                # poke-env message tasks still waiting when the loop closes are expected
                logging.getLogger("asyncio").setLevel(logging.CRITICAL)

            await asyncio.gather(listen(), sim.run(stop))

        asyncio.run(run())


def sim_main(
    cfg,
    run_dir: str,
    addr: dict,
    exp,
    weights,
    teams: list,
    lanes: list[dict] | None = None,
    eval_history: dict | None = None,
    shard: int = 0,
    parent: int | None = None,
) -> None:
    """Simulator shard ``shard`` (of ``sim.shards``) as a process of this machine:
    trajectories into its own shared-memory slots, weights from shared memory. Shard 0
    gets ``lanes`` (the exploiter lanes, maybe none) and plays the evaluation rounds;
    the others get None. ``parent``: the starting process's pid (exit_with_parent)."""
    exit_with_parent(parent)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s sim %(name)s %(levelname)s %(message)s")
    torch.set_num_threads(1)
    memtrace.start(f"sim{shard}")
    with ComponentSockets(addr, shard_name(shard)) as io:  # a failure goes out as Error
        push = io.ctx.socket(zmq.PUSH)
        push.connect(addr["experience"])
        lo, hi = slot_range(exp.n_slots, shard, cfg.sim.shards)
        local_lanes = None if lanes is None else [LocalLane(ln, io.ctx) for ln in lanes]
        with profiled(f"sim{shard}"):  # LEAGUE_PROFILE=DIR: league/proftrace.py
            run_simulator(
                cfg,
                shard_dir(run_dir, shard, cfg.sim.shards),
                io,
                shm_sink(exp, push, lo, hi),
                weights.read_if_newer,
                teams,
                local_lanes,
                eval_history,
            )
        io.send(Final())
