"""Batched inference for many concurrent battles, and the player that uses it.

:class:`PolicyServer` holds one policy's network for the simulator. Every decision of
every battle playing that policy calls :meth:`PolicyServer.act`; requests that arrive
in the same event-loop tick are answered by ONE batched forward (the flush is
scheduled with ``call_soon``), each battle keeping its own GRU hidden state (a row of
one table, gathered and written back for the whole batch at once). With
``min_batch`` > 1 the forward waits until that many requests are pending or
``max_wait_s`` has passed since the first of them (``sim.infer_batch``,
``sim.infer_wait_ms``): fewer, larger forwards, each decision waiting a little longer. Actions
are sampled from the masked distribution and the log-probability of the sampled
action under that same distribution is returned, to be stored as the behaviour
log-prob ``mu_logp``.

:class:`NeuralPlayer` turns each battle into a whole trajectory (team preview
included): observation, legal mask (preview masks padded to 2025), kind, action,
behaviour log-prob; the reward stored is the outcome (+1 win, -1 loss, 0 tie), and
any shaping is the learner's (league/learn/reward.py, read from the observations). A
finished trajectory goes to ``sink``.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from league.battle.actions import JOINT_ACTIONS, PREVIEW_ACTIONS
from league.battle.obs import OBS_DIM
from league.model.net import PolicyValueNet
from league.players.base import LeaguePlayer
from league.seeding import stable_seed
from league.sim.lookahead import look_ahead
from league.transport.data import Trajectory

log = logging.getLogger(__name__)


ORDER_PER_TURN = 8  # step key = turn * 8 + decisions already taken in that turn


class ForwardFailed(RuntimeError):
    """A decision whose batched forward raised (the batch's error in the text)."""


class PolicyServer:
    """One policy's network answering batched requests inside the simulator's loop."""

    def __init__(
        self,
        net: PolicyValueNet,
        name: str,
        *,
        greedy: bool = False,
        seed: int = 0,
        device: str | torch.device = "cpu",
        min_batch: int = 1,
        max_wait_s: float = 0.002,
        compile: bool = False,
    ):
        if min_batch < 1 or max_wait_s < 0:
            raise ValueError(f"min_batch must be >= 1 and max_wait_s >= 0, got {min_batch}, {max_wait_s}")
        self.device = torch.device(device)
        self.net = net.eval().to(self.device)
        self.min_batch, self.max_wait_s = min_batch, max_wait_s
        self.name = name
        self.greedy = greedy
        self.compiled = compile
        self.version = 0
        self.gen = torch.Generator(device="cpu").manual_seed(seed)
        self._pending: list[tuple[str, np.ndarray, np.ndarray, bool, asyncio.Future, int, bool]] = []
        # every battle's recurrent state: one row of ``_state`` per battle (``_slots``: key ->
        # row; a forgotten battle's row is reused, zeroed, by the next new one), read and
        # written for a whole batch by one index_select / index_copy_
        self._slots: dict[str, int] = {}
        self._free: list[int] = []
        self._state = torch.zeros((0, net.state_dim), device=self.device)
        self._scheduled = False
        self._timer: asyncio.TimerHandle | None = None
        # host buffers the batch is stacked into (pinned on CUDA: the copy to the GPU is a DMA)
        self._pin = self.device.type == "cuda"
        self._obs_host = torch.empty((0, OBS_DIM))
        self._mask_host = torch.empty((0, JOINT_ACTIONS), dtype=torch.bool)
        self._prev_host = torch.empty(0, dtype=torch.bool)
        # stats
        self.forwards = 0
        self.requests = 0
        self.failed = 0  # decisions whose batched forward raised
        self.infer_s = 0.0
        self.infer_cpu_s = 0.0  # this thread's CPU seconds in forwards
        self.forward: Callable[..., Any] = self.net
        if compile:
            try:
                # the GRU traced into the graph: by default dynamo breaks it at nn.GRU, and
                # the two graphs with the GRU run eagerly between them cost 0.15-0.45 ms more a
                # forward of 24 decisions (experiments/issue31_infer_rnn). Read when a graph
                # is traced, so set for the process (the simulator's only compiled forwards).
                torch._dynamo.config.allow_rnn = True
                self.forward = torch.compile(self.net, dynamic=True)
                self._warm_up()
            except Exception as e:  # no C compiler, an op inductor cannot lower, ...: act eagerly
                log.warning(
                    "%s: sim.compile: torch.compile failed (%s: %s); this policy acts eagerly",
                    name,
                    type(e).__name__,
                    (str(e).strip().splitlines() or [""])[0][:300],
                )
                self.forward, self.compiled = self.net, False

    @torch.no_grad()
    def _warm_up(self) -> None:
        """Compile the acting forward now (batch 1 and 2: one dynamic graph), not in a battle."""
        for B in (1, 2):
            mask = torch.zeros(1, B, JOINT_ACTIONS, dtype=torch.bool, device=self.device)
            mask[..., 0] = True
            prev = torch.zeros(1, B, dtype=torch.bool, device=self.device)
            self.forward(
                torch.zeros(1, B, OBS_DIM, device=self.device), mask, prev, self.net.initial_state(B, self.device)
            )

    def load_weights(self, flat: torch.Tensor, version: int) -> None:
        """Copy a flat parameter vector in place (a compiled forward keeps its graph)."""
        flat = flat.to(self.device, non_blocking=True)
        with torch.no_grad():
            i = 0
            for p in self.net.parameters():
                n = p.numel()
                p.copy_(flat[i : i + n].view_as(p))
                i += n
        self.version = version

    def _host(self, B: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        if self._obs_host.shape[0] < B:
            cap = max(B, 2 * self._obs_host.shape[0], 16)
            self._obs_host = torch.empty((cap, OBS_DIM), pin_memory=self._pin)
            self._mask_host = torch.empty((cap, JOINT_ACTIONS), dtype=torch.bool, pin_memory=self._pin)
            self._prev_host = torch.empty(cap, dtype=torch.bool, pin_memory=self._pin)
        return self._obs_host[:B], self._mask_host[:B], self._prev_host[:B]

    def _rows(self, keys: list[str]) -> torch.Tensor:
        """The state rows of ``keys`` (a new key gets a free row, zeroed: a battle's first
        decision starts from the initial state), growing the table by doubling."""
        rows, new = [], []
        for key in keys:
            r = self._slots.get(key)
            if r is None:
                if not self._free:
                    n = self._state.shape[0]
                    cap = max(16, 2 * n)
                    grown = torch.zeros((cap, self._state.shape[1]), device=self.device)
                    grown[:n] = self._state
                    self._state = grown
                    self._free = list(range(cap - 1, n - 1, -1))
                r = self._free.pop()
                self._slots[key] = r
                new.append(r)
            rows.append(r)
        idx = torch.tensor(rows, device=self.device)
        if new:
            self._state.index_fill_(0, torch.tensor(new, device=self.device), 0.0)
        return idx

    def forget(self, key: str) -> None:
        r = self._slots.pop(key, None)
        if r is not None:
            self._free.append(r)

    def act(self, key: str, obs: np.ndarray, mask: np.ndarray, is_preview: bool) -> asyncio.Future:
        """-> future of (action, log-prob of it under the sampled distribution)."""
        return self._request(key, obs, mask, is_preview, 0)

    def act_top(self, key: str, obs: np.ndarray, mask: np.ndarray, is_preview: bool, k: int) -> asyncio.Future:
        """-> future of (the ``k`` likeliest legal actions, most likely first, their
        log-probs): the same decision as :meth:`act` (the battle's recurrent state moves on
        the same way), for a player that chooses among them itself (search)."""
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        return self._request(key, obs, mask, is_preview, k)

    def act_and_top(self, key: str, obs: np.ndarray, mask: np.ndarray, is_preview: bool, k: int) -> asyncio.Future:
        """-> future of (action, its log-prob, the ``k`` likeliest legal actions, their
        log-probs): :meth:`act`'s draw and :meth:`act_top`'s list from one forward, for a
        learning player that plays its draw and searches the list for a target."""
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        return self._request(key, obs, mask, is_preview, k, both=True)

    def _request(
        self, key: str, obs: np.ndarray, mask: np.ndarray, is_preview: bool, k: int, both: bool = False
    ) -> asyncio.Future:
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self._pending.append((key, obs, mask, is_preview, fut, k, both))
        if len(self._pending) >= self.min_batch:
            if not self._scheduled:
                self._scheduled = True
                loop.call_soon(self._flush)
        elif self._timer is None:
            self._timer = loop.call_later(self.max_wait_s, self._flush)
        return fut

    @torch.no_grad()
    def _flush(self) -> None:
        self._scheduled = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        batch, self._pending = self._pending, []
        if not batch:
            return
        try:
            self._answer(batch)
        except Exception as e:  # the batch's decisions fail (counted), they do not wait forever
            self.failed += len(batch)
            log.exception("%s: batched forward of %d decisions failed", self.name, len(batch))
            for *_, fut, _k, _both in batch:
                if not fut.done():
                    fut.set_exception(ForwardFailed(f"{self.name}: batched forward failed ({type(e).__name__}: {e})"))

    def _answer(self, batch: list) -> None:
        t0, c0 = time.perf_counter(), time.thread_time()
        B = len(batch)
        obs_host, mask_host, prev_host = self._host(B)
        np.stack([b[1] for b in batch], out=obs_host.numpy())
        np.stack([b[2] for b in batch], out=mask_host.numpy())
        prev_host.numpy()[:] = [b[3] for b in batch]
        obs = obs_host.to(self.device, non_blocking=True)[None]
        mask = mask_host.to(self.device, non_blocking=True)[None]
        prev = prev_host.to(self.device, non_blocking=True)[None]
        rows = self._rows([b[0] for b in batch])
        logits, _, h1 = self.forward(obs, mask, prev, self._state.index_select(0, rows)[None])
        logits = logits[0].float()
        logp_all = torch.log_softmax(logits, -1)
        # a NaN logit anywhere in a row makes its normaliser, so every entry, NaN: column 0
        # tells for the whole row (a fraction of isnan over every logit's cost)
        if torch.isnan(logp_all[:, 0]).any():  # NaN weights (a diverged learner's): no draw
            # means anything, and the battles' recurrent states are kept as they were
            raise FloatingPointError("the network's logits are not numbers (NaN weights)")
        self._state.index_copy_(0, rows, h1[0].to(self._state.dtype))
        if self.greedy:
            actions = logits.argmax(-1)
        else:
            u = torch.rand(B, generator=self.gen, dtype=torch.float64)
            actions = inverse_cdf(torch.softmax(logits, -1).cpu(), u).to(self.device)
        logp = logp_all.gather(-1, actions[:, None]).squeeze(-1).cpu().numpy()
        actions = actions.cpu().numpy()
        kmax = max(b[5] for b in batch)
        if kmax:  # a search player's decisions: the likeliest legal actions, not one drawn
            best = logp_all.topk(min(kmax, logp_all.shape[-1]), -1)
            top_lp, top_a = best.values.cpu().numpy(), best.indices.cpu().numpy()
        for i, (_, _, m, _, fut, k, both) in enumerate(batch):
            if fut.done():
                continue
            if k:
                legal = [(int(a), float(x)) for a, x in zip(top_a[i, :k], top_lp[i, :k], strict=True) if m[a]]
                top = ([a for a, _ in legal], [x for _, x in legal])
                fut.set_result((int(actions[i]), float(logp[i]), *top) if both else top)
            else:
                fut.set_result((int(actions[i]), float(logp[i])))
        self.forwards += 1
        self.requests += B
        self.infer_s += time.perf_counter() - t0
        self.infer_cpu_s += time.thread_time() - c0


def inverse_cdf(probs: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
    """One action per row of ``probs`` (B, A), drawn by its cumulative sum at the uniform
    ``u`` (B,) in [0, 1): the first action whose cumulative probability exceeds u × the
    row's total, so an action of probability 0 (masked) is never drawn; u × total rounded
    up to the total gives the row's last possible action. ~5x cheaper than
    ``torch.multinomial`` on 2,025 actions (0.56 against 3.06 ms a forward of 32, measured)."""
    c = probs.double().cumsum(-1)
    total = c[:, -1:].contiguous()
    idx = torch.searchsorted(c, u.to(c.dtype)[:, None] * total, right=True).squeeze(-1)
    # the last possible action: the first where the cumulative sum (non-decreasing) reaches
    # the total, the actions after it adding nothing; a binary search of each row, where
    # counting the entries below the total took ~60 us a forward of 26 (~8 us)
    last = torch.searchsorted(c, total).squeeze(-1)
    return torch.minimum(idx, last)


def pad_preview_mask(mask: np.ndarray) -> np.ndarray:
    out = np.zeros(JOINT_ACTIONS, dtype=bool)
    out[:PREVIEW_ACTIONS] = mask
    return out


@dataclass
class Seat:
    """Who one side of one battle plays as."""

    member: str  # league member id
    policy: PolicyServer | None  # network policy, or None for a fixed baseline
    baseline: str | None = None  # a fixed baseline (SCRIPTED_ROLES) when policy is None
    learn: bool = False  # record the trajectory for a learner
    agent: str = ""  # the learner it goes to
    pair: tuple[int, int] | None = None  # (agent's team, this seat's team) in the matchmaker's pool (TeamPairs)


def team_pair_key(battle) -> int:
    """A nonzero int63 naming the team pair of ``battle`` from this side: its own six
    species and the foe's six shown at team preview (each sorted), so the two sides of
    one pairing have two keys and every battle of the same two teams from the same side
    the same one; 0 when the foe's team was not shown (a format without team preview)."""
    foes = [m.species for m in battle.teampreview_opponent_team]
    return pair_key([m.species for m in battle.team.values()], foes) if foes else 0


def pair_key(own, foes) -> int:
    """:func:`team_pair_key` from the two teams' species ids."""
    key = ("|".join(sorted(own)) + "/" + "|".join(sorted(foes))).encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little") >> 1 or 1


def baseline_choice(name: str | None, battle, decision, rng) -> int:
    from league.players.base import sample_legal
    from league.players.heuristic import heuristic_preview, heuristic_turn
    from league.players.maxdamage import maxdamage_preview, maxdamage_turn

    if name == "random":
        return sample_legal(decision.mask, rng)
    if name == "maxdamage":
        return maxdamage_preview(battle, decision) if decision.kind == "preview" else maxdamage_turn(battle, decision)
    if name == "heuristic":
        return heuristic_preview(battle, decision) if decision.kind == "preview" else heuristic_turn(battle, decision)
    raise ValueError(f"unknown baseline {name!r}")


class NeuralPlayer(LeaguePlayer):
    """Plays each battle as a :class:`Seat`: by default always the same network policy
    (``policy``), learning when ``sink`` is given. Records whole trajectories of the
    seats that learn."""

    encode_observations = True

    def __init__(
        self,
        *args,
        policy: PolicyServer | None = None,
        sink: Callable[[Trajectory], None] | None = None,
        agent: str = "main",
        opponent: str = "",
        gate: Callable[[], asyncio.Future | None] | None = None,
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.default_seat = Seat(agent, policy, learn=sink is not None, agent=agent) if policy is not None else None
        self.policy = policy
        self.sink = sink
        self.agent = agent
        self.opponent = opponent
        self.gate = gate  # awaited before each decision: back-pressure from the learner
        self.trajectories: dict[str, Trajectory] = {}
        self.failed_battles: set[str] = set()  # battles with a failed forward: no learning data
        self.seats: dict[str, Seat] = {}
        self.rng = __import__("random").Random(stable_seed(self.username))
        self.evaluation = False  # it plays evaluation games (the Simulator's baselines): not the main agent's
        self.after_battle: Callable[[Any], None] | None = None  # called with each finished battle, last
        # search targets (sim.search_share; set by the Simulator on the main agent's player):
        # this share of its own learning move requests is searched one turn ahead among the
        # network's search_k likeliest actions (search_samples rolls each) and the pick
        # stored as the step's target; the player still plays its own draw
        self.search_share, self.search_k, self.search_samples, self.search_tau = 0.0, 8, 1, 0.0
        self.search_margin = 0.0  # a pick other than the likeliest is a target only when it beats it by this
        self.search_play = False  # the pick is played too, not only kept as the target
        self.search_mu = "sure"  # a played pick's behaviour log-prob: 0, or "network": the network's (SEARCH_MUS)
        self.target_rng = __import__("random").Random(stable_seed(self.username, "search-target"))
        self.targets = 0  # move requests searched for a target
        self.targets_changed = 0  # ... whose pick was not the network's likeliest action
        self.targets_close = 0  # ... whose pick beat it by less than search_margin: no target
        self.targets_skipped = 0  # ... the worker could not search (a live battle it could not copy)

    def _seat_known(self, battle) -> Seat | None:
        """The seat this player plays ``battle`` as, if known yet (its draw, or its own)."""
        return self.seats.get(battle.battle_tag) or self.default_seat

    def encodes(self, battle) -> bool:
        """No observation for a battle this player plays as a fixed baseline (a
        matchmade seat of ``maxdamage``, ``random``, ...): the baseline reads the request
        and the battle, and nothing of that battle is learnt from."""
        seat = self._seat_known(battle)
        return seat is None or seat.policy is not None

    def reads_threat(self, battle) -> bool:
        return self._reads(battle, "threat")

    def reads_sheets(self, battle) -> bool:
        return self._reads(battle, "sheets")

    def reads_own_tera(self, battle) -> bool:
        seat = self._seat_known(battle)
        if seat is not None and seat.policy is None:  # a baseline seat: as that baseline's player reads
            from league.players import BASELINES, LeaguePlayer

            cls = BASELINES.get(seat.baseline or "")
            return cls is not None and issubclass(cls, LeaguePlayer) and cls.reads_own_tera(self, battle)
        return self._reads(battle, "own_tera")

    def _reads(self, battle, block: str) -> bool:
        """Whether the network deciding this battle reads ``block`` (``model.threat``,
        ``model.sheets`` or ``model.own_tera``); True while no seat is known yet."""
        seat = self._seat_known(battle)
        if seat is None:
            return True
        return seat.policy is not None and bool(getattr(seat.policy.net.cfg, block))

    def seat_for(self, battle) -> Seat:
        if self.default_seat is None:
            raise ValueError(f"{self.username}: a NeuralPlayer without a policy plays only the seats given to it")
        return self.default_seat

    async def _decide(self, battle, decision, is_preview: bool) -> int:
        seat = self.seats.get(battle.battle_tag) or self.seats.setdefault(battle.battle_tag, self.seat_for(battle))
        if seat.policy is None:
            return baseline_choice(seat.baseline, battle, decision, self.rng)
        if seat.learn and self.gate is not None:
            g = self.gate()
            if g is not None:
                await g
        mask = pad_preview_mask(decision.mask) if is_preview else decision.mask
        tag = battle.battle_tag
        # Both sides of a self-play battle may share one PolicyServer: key by player too.
        key = self.username + "|" + tag
        target = -1
        try:
            if self._searches(seat, decision, is_preview):
                action, logp, top, top_lp = await seat.policy.act_and_top(key, decision.obs, mask, False, self.search_k)
                target = await self._search_target(battle, decision, top, top_lp)
                if self.search_play and target >= 0:
                    # the look-ahead plays its pick, a choice of probability 1 for the
                    # behaviour: the learner's ratio pi/mu is pi(pick) <= 1. (The network's
                    # own log-prob there made PPO's ratio explode on picks it found
                    # unlikely: the learner diverged at update 368.) With search_mu
                    # "network" it is that log-prob, the ratio bounded by PPO's dual clip.
                    logp = top_lp[top.index(target)] if self.search_mu == "network" else 0.0
                    action = target
            else:
                action, logp = await seat.policy.act(key, decision.obs, mask, is_preview)
        except ForwardFailed:  # counted by the server; the battle goes on, its trajectory is not data
            self.failed_battles.add(tag)
            self.trajectories.pop(tag, None)
            return baseline_choice("random", battle, decision, self.rng)
        if seat.learn and self.sink is not None and tag not in self.failed_battles:
            traj = self.trajectories.get(tag)
            if traj is None:
                # a frozen member's play learned off-policy: stamp it with the learning
                # policy's version (policy lag), not the frozen network's 0
                version = self.policy.version if self.policy is not None else seat.policy.version
                traj = self.trajectories[tag] = Trajectory(
                    seat.agent,
                    version,
                    opponent=self.opponent,
                    battle=self._battle_key(battle, seat),
                    group=team_pair_key(battle),
                )
            turn = int(battle.turn)
            last = traj.order[-1] if traj.order else -1
            same_turn = last // ORDER_PER_TURN == turn
            traj.order.append(
                min(last + 1, turn * ORDER_PER_TURN + ORDER_PER_TURN - 1) if same_turn else turn * ORDER_PER_TURN
            )
            traj.obs.append(decision.obs)
            traj.mask.append(mask)
            traj.is_preview.append(is_preview)
            traj.actions.append(action)
            traj.logp.append(logp)
            if self.search_share > 0:
                traj.target.append(target)
        return action

    def _searches(self, seat: Seat, decision, is_preview: bool) -> bool:
        """Whether this decision is searched for a target: a move request of the learning
        policy's own play (not a frozen member's), drawn at ``search_share``."""
        return (
            self.search_share > 0
            and seat.learn
            and self.sink is not None
            and seat.member == seat.agent
            and not is_preview
            and decision.view.kind == "move"
            and self.target_rng.random() < self.search_share
        )

    async def _search_target(self, battle, decision, top: list[int], top_lp: list[float]) -> int:
        """The look-ahead's pick among ``top`` (league/sim/lookahead.py), or -1: one legal
        action (nothing to choose), a battle the worker could not copy, or (with
        ``search_margin``) a pick other than the likeliest action that beats it by less
        than that margin (a near-tie)."""
        if len(top) < 2:
            return -1
        fork = getattr(self.ps_client, "fork", None)
        best = None
        if fork is not None:
            best = await look_ahead(
                fork,
                battle.battle_tag,
                decision.view,
                top,
                top_lp,
                self.search_samples,
                self.target_rng,
                tau=self.search_tau,
                margin=self.search_margin,
            )
        if best is None:
            # a battle the player no longer plays (stopped at the run's end, dropped) is
            # no skip: its choice is never sent
            self.targets_skipped += self.in_play(battle)
            return -1
        self.targets += 1
        if best < 0:  # a near-tie (search_margin): no target, the step is learned as experience only
            self.targets_close += 1
            return -1
        self.targets_changed += best != 0
        return top[best]

    def _battle_key(self, battle, seat: Seat) -> int:
        """Nonzero and the same for both seats of one battle when this seat plays the
        learning policy itself (on-policy self-play); 0 otherwise (a frozen member's or
        exploiter victim's play is not the regularised opponent)."""
        if seat.member != seat.agent:
            return 0
        key = f"{self.ps_client.websocket_url}|{battle.battle_tag}".encode()
        return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little") >> 1 or 1

    def choose_preview(self, battle, decision):
        return self._decide(battle, decision, True)

    def choose_turn(self, battle, decision):
        return self._decide(battle, decision, False)

    def _forget(self, battle):
        tag = battle.battle_tag
        self.failed_battles.discard(tag)
        seat = self.seats.pop(tag, None)
        if seat is not None and seat.policy is not None:
            seat.policy.forget(self.username + "|" + tag)
        return self.trajectories.pop(tag, None)

    def on_battle_dropped(self, battle) -> None:
        self._forget(battle)  # no outcome: the trajectory is not learning data

    def on_battle_end(self, battle) -> None:
        traj = self._forget(battle)
        if traj is not None and self.sink is not None and len(traj):
            traj.reward = 1.0 if battle.won else (-1.0 if battle.lost else 0.0)
            self.sink(traj)
        if self.after_battle is not None:
            self.after_battle(battle)


class MatchmadePlayer(NeuralPlayer):
    """The opponent side of the main agent's battles: every battle it plays as the
    league member the matchmaker draws for that episode, with that member's team.

    The draw happens when poke-env asks for the team to accept the next challenge, and
    poke-env accepts the next challenge only once the previous battle exists, so the
    draw is bound to the next battle created (``_create_battle``).
    """

    def __init__(self, *args, matchmaker, **kwargs):
        from collections import deque

        from league.players.base import PoolTeambuilder

        self.matchmaker = matchmaker
        self._queued: deque[Seat] = deque()
        kwargs["team"] = PoolTeambuilder(self._draw)
        super().__init__(*args, **kwargs)

    def _draw(self) -> str:
        seat, team = self.matchmaker.draw()
        self._queued.append(seat)
        return team

    async def _create_battle(self, split_message):
        battle = await super()._create_battle(split_message)
        if battle.battle_tag not in self.seats and self._queued:
            self.seats[battle.battle_tag] = self._queued.popleft()
        return battle

    def seat_for(self, battle) -> Seat:
        return self._queued.popleft()  # only if a battle was somehow created before its draw

    def on_battle_end(self, battle) -> None:
        seat = self.seats.get(battle.battle_tag)
        if seat is not None:
            score = 1.0 if battle.won else (0.0 if battle.lost else 0.5)
            self.matchmaker.report(seat.member, 1.0 - score, seat.pair)  # from the main agent's side
        super().on_battle_end(battle)
