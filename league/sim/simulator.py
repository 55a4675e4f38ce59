"""The simulator: a Showdown fleet, poke-env players, batched inference, trajectories.

One asyncio loop plays, on every server of its fleet:
- the main agent's battles, C at a time: against an opponent drawn per battle by the
  matchmaker (itself, a past self, an exploiter, a fixed baseline); its trajectories,
  and the opponent's when that is the main agent too, are learning data;
- evaluation: the main policy against ``random`` and ``maxdamage``, a few battles at
  a time, logged as win rates (and learning data too with ``sim.eval_learn``).

Where it runs is not its business: ``sim_proc`` wraps it in a process and wires the
sink (shared memory + pyzmq) and the weights source (shared memory), in a process (or a
thread: run.placement=serial); the Ray placement wires its own.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from league import heap
from league.match import play_matches
from league.players import MaxDamagePlayer, RandomPlayer
from league.players.base import LeaguePlayer, PoolTeambuilder
from league.showdown import Fleet
from league.sim.policy import MatchmadePlayer, NeuralPlayer, PolicyServer
from league.transport.data import Trajectory

log = logging.getLogger(__name__)

SEARCH_MUS = ("sure", "network")  # SimConfig.search_mu


@dataclass
class SimConfig:
    # "stream": Showdown's simulator in worker processes, no server (league/showdown/stream.py);
    # "server": local Showdown servers, battles over websockets (poke-env's own client)
    backend: str = "stream"
    servers: int = 2  # stream workers (Showdown servers with backend "server")
    # Simulator shards: each its own process (a Ray actor with run.placement=ray), its own
    # fleet of `servers` and its own policy copy; all feed the main learner. Shard 0 also
    # plays the exploiter lanes and the league's evaluation rounds. What uses many cores: a
    # shard with one worker is ~1.6 busy cores (its Python and Node take turns); 6 of them
    # on 16 cores and a GPU: 137 battles/s (experiments/gpu), with n_slots ~ a slot per
    # battle in flight.
    shards: int = 1
    concurrency: int = 24  # self-play battles at a time, per server
    # Inference batching: a policy's forward waits for this many pending decisions, or
    # infer_wait_ms after the first (1: answer each event-loop tick's requests at once).
    infer_batch: int = 1
    infer_wait_ms: float = 2.0  # longest wait for infer_batch requests after the first (ms)
    device: str = "auto"  # where the simulator's forwards run: auto (cuda when available), cpu, cuda
    compile: bool = False  # torch.compile the acting forward (compiled and warmed up when a policy is built)
    eval_concurrency: int = 2  # battles at a time per server vs each of random and maxdamage (0: off)
    eval_window: int = 200  # win rates over the last N evaluation games
    # The main policy's side of the evaluation games is learning data too (their win
    # rates are still logged apart); off, those games are played and thrown away.
    eval_learn: bool = False
    t_max: int = 96  # longest trajectory kept (decisions)
    n_slots: int = 64  # shared-memory trajectory slots
    max_pending: int = 32  # finished trajectories waiting for a slot before players pause
    stats_every_s: float = 5.0  # how often the simulator reports its counters to the coordinator
    weights_poll_s: float = 0.5  # how often the simulator looks for newer published weights
    stall_timeout_s: float = 120.0  # no progress on a server (or worker) this long: its battles in flight dropped
    battle_timeout_s: float = 300.0  # a battle with no message this long while others go on is ended (0: never)
    # Search targets (expert iteration): this share of the main agent's own move requests
    # is searched one turn ahead on copies of the battle (the stream backend's workers:
    # league/sim/lookahead.py) among the network's search_k likeliest joint actions,
    # search_samples rolls each; the pick is kept as the step's target, learned at
    # learner.search_coef. The agent still plays its own draw. 0: off (at 0.2 and 0.1, one
    # seed at 2,500 updates: greedy no different, sampling worse, ~0.6x the battles/s;
    # experiments/issue27_exit_screen).
    search_share: float = 0.0
    search_k: int = 8  # candidates a searched move request looks at: the network's likeliest joint actions
    search_samples: int = 1  # copies of the coming turn played for each candidate (their values averaged)
    # 0: the target is the best-valued candidate; > 0: drawn with odds prior x exp(value /
    # search_tau) (a knock-out is 0.25 of value), keeping the network's odds among near-ties
    # (0.05, one seed: sampling as low as the arg-max's; experiments/issue27_soft_targets)
    search_tau: float = 0.0
    # A searched request whose pick is not the network's likeliest action keeps it as its
    # target only when the pick's value beats the likeliest's by at least this much (one-turn
    # material: each of a side's Pokemon 0.5 + 0.5 x its HP share alive, over the team
    # size; a knock-out ~0.25); a near-tie gets no target, a pick that is the likeliest stays
    # one. 0: every pick. (With 8 candidates and 2 rolls, a pick past 0.1 is better than the
    # network's choice in 0.81 of independent re-searches, by 0.21 on average; yet at 0.1,
    # one seed at 2,500 updates, the cross-entropy still kept the policy spread (turn entropy
    # 1.4 nats) and cost the sampling policy: 0.548 against 0.623, greedy no different;
    # experiments/issue27_margin_screen)
    search_margin: float = 0.0
    # the main agent plays the searched requests' picks instead of its draws, each a choice
    # of probability 1 for the behaviour (so pi/mu = pi(pick)): the look-ahead's play as
    # experience, not only as a target (learner.search_coef 0: as experience only; at share
    # 0.2, three seeds at 2,500 updates: inside the intervals, 0.646 / 0.644 greedy /
    # sampling against 0.632 / 0.623, ~0.9x the battles/s; experiments/issue27_soft_targets)
    search_play: bool = False
    # The behaviour log-prob a played pick is stored with (sim.search_play): "sure", 0 (the
    # look-ahead chose it for certain, so PPO's ratio pi/mu is pi(pick) and a pick the
    # network found unlikely is learned at that small weight), or "network", the network's
    # own log-prob of the pick when it was searched (the ratio starts at 1: the pick's
    # advantage is learned at full weight, as if the network had drawn it; needs
    # learner.rnad.ppo_dual_clip, since the ratio of an unlikely pick can grow far past 1)
    search_mu: str = "sure"
    # A turn with one legal joint order (a forced switch to the last Pokemon standing, a
    # locked move; ~8 % of decisions) is answered with it: no observation, no forward, no
    # step in the trajectory (league.players.base.LeaguePlayer.answer_forced). false: every
    # turn goes through the network, as before 2026-12-07.
    answer_forced: bool = True


@dataclass
class SimStats:
    battles: int = 0
    decisions: int = 0
    trajectories: int = 0
    dropped_long: int = 0
    # trajectories not delivered, by reason: too_long (> sim.t_max decisions), at_stop
    # (pending when the simulator stopped), lane_too_long, lane_full (an exploiter lane's
    # learner behind); a Ray sink adds slot_wait and learner_gone
    dropped: Counter = field(default_factory=Counter)
    showdown_errors: int = 0
    eval: dict[str, deque] = field(default_factory=dict)
    eval_games: Counter = field(default_factory=Counter)

    def eval_rates(self) -> dict[str, float]:
        return {k: (sum(v) / len(v)) for k, v in self.eval.items() if len(v)}


class Simulator:
    def __init__(
        self,
        cfg: SimConfig,
        fleet: Fleet,
        policy: PolicyServer,
        teams: list[str],
        sink: Callable[[Trajectory], bool],
        *,
        battle_format: str = "gen9vgc2023regc",
        open_team_sheets: bool = False,
        seed: int = 0,
        weights_source: Callable[[int], tuple[Any, int] | None] | None = None,
        on_stats: Callable[[dict], None] | None = None,
        matchmaker=None,
        eval_history: dict | None = None,
    ):
        self.cfg, self.fleet, self.policy, self.teams = cfg, fleet, policy, teams
        self.sink = sink  # returns False when it could not take the trajectory yet
        self.format = battle_format
        self.open_team_sheets = open_team_sheets  # every battle's players accept them (showdown.open_team_sheets)
        self.seed = seed
        self.weights_source = weights_source
        self.on_stats = on_stats
        self.matchmaker = matchmaker  # draws the main agent's opponent per battle (None: self-play)
        self.stats = SimStats()
        # evaluation windows carried over a resume or a restart (the checkpoint's, or the
        # dead simulator's last report): win rates go on from where they were
        for opp, results in (eval_history or {}).items():
            self.stats.eval[opp] = deque(results, maxlen=cfg.eval_window)
        self.players: list = []
        self._pending: deque[Trajectory] = deque()
        self._gate_open = asyncio.Event()
        self._gate_open.set()
        self._t0 = time.monotonic()
        self.begin_cpu_window()  # again when battles start (run): startup's CPU is not theirs

    def _cpu_now(self) -> dict[str, float]:
        return {
            "process_s": time.process_time(),
            "encode_s": LeaguePlayer.encode_cpu_s,
            "infer_s": getattr(self.policy, "infer_cpu_s", 0.0),
            "gc_s": heap.gc_cpu_s(),
        }

    def begin_cpu_window(self) -> None:
        """From now on :meth:`cpu` counts: this process's imports and the acting forward's
        compilation (tens of CPU seconds) are not its battles'."""
        self._cpu0 = self._cpu_now()

    def cpu(self) -> dict[str, float]:
        """This process's CPU seconds since :meth:`begin_cpu_window`, and those of its
        decisions, forwards and garbage collections (tools.bench splits by them)."""
        return {k: round(v - self._cpu0[k], 6) for k, v in self._cpu_now().items()}

    # ------------------------------------------------------------------ sink with back-pressure
    def _collect(self, traj: Trajectory) -> None:
        self.stats.trajectories += 1
        if len(traj) > self.cfg.t_max:
            self.stats.dropped_long += 1
            self.stats.dropped["too_long"] += 1
            return
        self._pending.append(traj)
        self._drain()

    def _drain(self) -> None:
        while self._pending and self.sink(self._pending[0]):
            self._pending.popleft()
        if len(self._pending) >= self.cfg.max_pending:
            self._gate_open.clear()
        else:
            self._gate_open.set()

    def _gate(self):
        return None if self._gate_open.is_set() else self._gate_open.wait()

    # ------------------------------------------------------------------ players
    def _p1(self, make):
        """``make`` (a player factory) for a stream's p1: the player whose battles count."""

        def make_p1(**kw):
            p = make(**kw)
            p.counted = True
            return p

        return make_p1

    def _neural(self, *, learn: bool, opponent: str, evaluation: bool = False, **kw) -> NeuralPlayer:
        p = NeuralPlayer(
            policy=self.policy,
            sink=self._collect if learn else None,
            opponent=opponent,
            gate=self._gate if learn else None,
            **kw,
        )
        p.evaluation = evaluation
        if evaluation:
            p.after_battle = self._eval_hook(opponent)
        return self._adopt(p)

    def _main(self, **kw) -> NeuralPlayer:
        """The main stream's p1: the learning agent, its team drawn with its opponent's
        when the matchmaker draws team pairs."""
        p = self._neural(learn=True, opponent="self", **kw)
        p.search_share, p.search_k, p.search_samples = self.cfg.search_share, self.cfg.search_k, self.cfg.search_samples
        p.search_tau, p.search_play, p.search_mu = self.cfg.search_tau, self.cfg.search_play, self.cfg.search_mu
        p.search_margin = self.cfg.search_margin
        if self.matchmaker is not None and self.matchmaker.pairs is not None:
            p.update_team(PoolTeambuilder(self.matchmaker.own_team))
        return p

    def _matchmade(self, **kw) -> MatchmadePlayer:
        return self._adopt(
            MatchmadePlayer(matchmaker=self.matchmaker, policy=self.policy, sink=self._collect, gate=self._gate, **kw)
        )

    def _eval_hook(self, opponent: str) -> Callable[[Any], None]:
        def hook(battle) -> None:
            win = 1.0 if battle.won else (0.5 if not battle.lost else 0.0)
            self.stats.eval.setdefault(opponent, deque(maxlen=self.cfg.eval_window)).append(win)
            self.stats.eval_games[opponent] += 1

        return hook

    def _baseline(self, cls):
        def make(**kw):
            return self._adopt(cls(**kw))

        return make

    def _adopt(self, p):
        """Every player this simulator makes: counted in its stats, forced turns as
        ``sim.answer_forced`` says."""
        p.answer_forced = self.cfg.answer_forced
        self.players.append(p)
        return p

    # ------------------------------------------------------------------ loops
    async def _poll_weights(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            if self.weights_source is not None:
                got = self.weights_source(self.policy.version)
                if got is not None:
                    self.policy.load_weights(*got)
            if self._pending:
                self._drain()
            await asyncio.sleep(self.cfg.weights_poll_s)

    def snapshot(self) -> dict:
        live = [p for p in self.players]
        decisions = sum(p.decisions for p in live)
        errors = sum(p.showdown_errors for p in live)
        # the battles of the main stream (the agent vs itself or a drawn league member) and
        # of the evaluation streams, each counted once, by its p1 (``_p1``): every battle
        # started is finished, lost (timed out, or in flight on a crashed server or at the
        # stop: league.match retires its players) or still in flight
        p1s = [p for p in live if getattr(p, "counted", False)]
        main_battles = sum(p.n_finished for p in p1s if not p.evaluation)
        evals = sum(self.stats.eval_games.values())
        return {
            "t": time.monotonic() - self._t0,
            "battles": main_battles + evals,
            "main_battles": main_battles,
            "eval_battles": evals,
            "started": sum(p.n_started for p in p1s),
            "lost": sum(p.n_timed_out + p.lost_at_retire for p in p1s),
            "in_flight": sum(p.n_in_flight for p in p1s if not p.retired),
            "decisions": decisions,
            "forced": sum(p.forced for p in live),  # of them, turns with one legal order (sim.answer_forced)
            "showdown_errors": errors,
            "unavailable_choices": sum(p.unavailable_choices for p in live),
            # search targets (sim.search_share): move requests searched, those whose pick was
            # not the network's likeliest action, those the worker could not search
            "search_targets": sum(getattr(p, "targets", 0) for p in live),
            "search_changed": sum(getattr(p, "targets_changed", 0) for p in live),
            "search_close": sum(getattr(p, "targets_close", 0) for p in live),  # near-ties (sim.search_margin)
            "search_skipped": sum(getattr(p, "targets_skipped", 0) for p in live),
            "trajectories": self.stats.trajectories,
            "dropped_long": self.stats.dropped_long,
            "dropped": dict(self.stats.dropped + Counter(getattr(self.sink, "dropped", {}))),
            # battles the per-battle watchdog ended (each counted by both its players)
            "timed_out": sum(p.n_timed_out for p in live) // 2,
            "pending": len(self._pending),
            "forwards": self.policy.forwards,
            # decisions whose batched forward raised (played at random; their battles are no data)
            "forward_failures": self.policy.failed,
            "requests": self.policy.requests,
            "infer_s": self.policy.infer_s,
            "policy_version": self.policy.version,
            "eval": self.stats.eval_rates(),
            "eval_window": {k: list(v) for k, v in self.stats.eval.items()},
            "eval_games": dict(self.stats.eval_games),
            "server_restarts": sum(s.restarts for s in self.fleet.servers),
            # CPU seconds since its battles began (tools.bench splits the window's by them)
            "cpu": self.cpu(),
            **self._league_stats(),
        }

    def _league_stats(self) -> dict:
        mm = self.matchmaker
        if mm is None:
            return {}
        return {
            "results": mm.drain_results(),
            "draws": dict(mm.draws),
            "frozen_loads": mm.loads,
            "curriculum": dict(mm.sampler.last_weights),
            **({"team_pairs": mm.pairs.stats()} if mm.pairs is not None else {}),
        }

    async def _report(self, stop: asyncio.Event) -> None:
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), timeout=self.cfg.stats_every_s)
            except TimeoutError:
                pass
            if self.on_stats is not None:
                self.on_stats(self.snapshot())

    async def play_pair(
        self,
        make_p1,
        make_p2,
        n: int | None,
        p1_teams: list[str],
        *,
        stop=None,
        concurrency: int = 8,
        p2_teams: list[str] | None = None,
    ):
        """Another stream of battles on this fleet (exploiters, evaluation rounds): p1 with
        ``p1_teams``, p2 with ``p2_teams`` or the pool; ``n=None`` plays until ``stop``."""
        return await play_matches(
            self.fleet,
            make_p1,
            make_p2,
            n,
            p1_teams,
            p2_teams or self.teams,
            battle_format=self.format,
            open_team_sheets=self.open_team_sheets,
            concurrency=concurrency,
            stop=stop,
            stall_timeout=self.cfg.stall_timeout_s,
            battle_timeout=self.cfg.battle_timeout_s,
            seed=random.Random(self.seed).randrange(2**31),
        )

    async def run(self, stop: asyncio.Event) -> None:
        rng = random.Random(self.seed)
        self.begin_cpu_window()
        common: dict[str, Any] = dict(
            battle_format=self.format,
            open_team_sheets=self.open_team_sheets,
            stall_timeout=self.cfg.stall_timeout_s,
            battle_timeout=self.cfg.battle_timeout_s,
            stop=stop,
        )
        tasks = [
            play_matches(
                self.fleet,
                self._p1(self._main),
                self._matchmade
                if self.matchmaker is not None
                else (lambda **kw: self._neural(learn=True, opponent="self", **kw)),
                None,
                self.teams,
                self.teams,
                concurrency=self.cfg.concurrency,
                seed=rng.randrange(2**31),
                **common,
            ),
            self._poll_weights(stop),
            self._report(stop),
        ]
        if self.cfg.eval_concurrency > 0:
            for name, cls in (("random", RandomPlayer), ("maxdamage", MaxDamagePlayer)):
                tasks.append(
                    play_matches(
                        self.fleet,
                        self._p1(
                            lambda name=name, **kw: self._neural(
                                learn=self.cfg.eval_learn, opponent=name, evaluation=True, **kw
                            )
                        ),
                        self._baseline(cls),
                        None,
                        self.teams,
                        self.teams,
                        concurrency=self.cfg.eval_concurrency,
                        seed=rng.randrange(2**31),
                        **common,
                    )
                )
        await asyncio.gather(*tasks)
        self.stats.dropped["at_stop"] += len(self._pending)
        if self.on_stats is not None:
            self.on_stats(self.snapshot())
