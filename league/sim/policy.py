"""Batched inference for many concurrent battles, and the player that uses it.

:class:`PolicyServer` holds one policy's network for the simulator. Every decision of
every battle playing that policy calls :meth:`PolicyServer.act`; requests that arrive
in the same event-loop tick are answered by ONE batched forward (the flush is
scheduled with ``call_soon``), each battle keeping its own GRU hidden state. Actions
are sampled from the masked distribution and the log-probability of the sampled
action under that same distribution is returned, to be stored as the behaviour
log-prob ``mu_logp``.

:class:`NeuralPlayer` turns each battle into a whole trajectory (team preview
included): observation, legal mask (preview masks padded to 2025), kind, action,
behaviour log-prob; the reward is terminal (+1 win, -1 loss, 0 tie) unless shaping
is switched on. A finished trajectory goes to ``sink``.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import torch

from league.battle.actions import JOINT_ACTIONS, PREVIEW_ACTIONS
from league.model.net import PolicyValueNet
from league.players.base import LeaguePlayer


@dataclass
class Trajectory:
    agent: str
    version: int  # policy version that produced the first step
    obs: list[np.ndarray] = field(default_factory=list)
    mask: list[np.ndarray] = field(default_factory=list)
    is_preview: list[bool] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)
    logp: list[float] = field(default_factory=list)
    reward: float = 0.0
    opponent: str = ""

    def __len__(self) -> int:
        return len(self.actions)


class PolicyServer:
    """One policy's network answering batched requests inside the simulator's loop."""

    def __init__(self, net: PolicyValueNet, name: str, *, greedy: bool = False, seed: int = 0, device: str = "cpu"):
        self.net = net.eval().to(device)
        self.name = name
        self.greedy = greedy
        self.device = torch.device(device)
        self.version = 0
        self.gen = torch.Generator(device="cpu").manual_seed(seed)
        self._pending: list[tuple[str, np.ndarray, np.ndarray, bool, asyncio.Future]] = []
        self._hidden: dict[str, torch.Tensor] = {}
        self._scheduled = False
        # stats
        self.forwards = 0
        self.requests = 0
        self.infer_s = 0.0

    def load_weights(self, flat: torch.Tensor, version: int) -> None:
        torch.nn.utils.vector_to_parameters(flat.to(self.device), self.net.parameters())
        self.version = version

    def forget(self, key: str) -> None:
        self._hidden.pop(key, None)

    def act(self, key: str, obs: np.ndarray, mask: np.ndarray, is_preview: bool) -> asyncio.Future:
        """-> future of (action, log-prob of it under the sampled distribution)."""
        loop = asyncio.get_running_loop()
        fut = loop.create_future()
        self._pending.append((key, obs, mask, is_preview, fut))
        if not self._scheduled:
            self._scheduled = True
            loop.call_soon(self._flush)
        return fut

    @torch.no_grad()
    def _flush(self) -> None:
        self._scheduled = False
        batch, self._pending = self._pending, []
        if not batch:
            return
        t0 = time.perf_counter()
        B = len(batch)
        obs = torch.from_numpy(np.stack([b[1] for b in batch]))[None].to(self.device)
        mask = torch.from_numpy(np.stack([b[2] for b in batch]))[None].to(self.device)
        prev = torch.tensor([b[3] for b in batch])[None].to(self.device)
        zeros = None
        hs = []
        for key, *_ in batch:
            h = self._hidden.get(key)
            if h is None:
                if zeros is None:
                    zeros = torch.zeros(self.net.cfg.core_dim, device=self.device)
                h = zeros
            hs.append(h)
        h0 = torch.stack(hs)[None]
        logits, _, h1 = self.net(obs, mask, prev, h0)
        logits = logits[0].float()
        logp_all = torch.log_softmax(logits, -1)
        if self.greedy:
            actions = logits.argmax(-1)
        else:
            actions = torch.multinomial(logp_all.exp().cpu(), 1, generator=self.gen).squeeze(-1).to(self.device)
        logp = logp_all.gather(-1, actions[:, None]).squeeze(-1).cpu().numpy()
        actions = actions.cpu().numpy()
        for i, (key, _, _, _, fut) in enumerate(batch):
            self._hidden[key] = h1[0, i]
            if not fut.done():
                fut.set_result((int(actions[i]), float(logp[i])))
        self.forwards += 1
        self.requests += B
        self.infer_s += time.perf_counter() - t0


def pad_preview_mask(mask: np.ndarray) -> np.ndarray:
    out = np.zeros(JOINT_ACTIONS, dtype=bool)
    out[:PREVIEW_ACTIONS] = mask
    return out


class NeuralPlayer(LeaguePlayer):
    """Plays with a PolicyServer; records whole trajectories when ``sink`` is given."""

    encode_observations = True

    def __init__(self, *args, policy: PolicyServer, sink: Callable[[Trajectory], None] | None = None,
                 agent: str = "main", opponent: str = "", gate: Callable[[], "asyncio.Future | None"] | None = None,
                 **kwargs):
        super().__init__(*args, **kwargs)
        self.policy = policy
        self.sink = sink
        self.agent = agent
        self.opponent = opponent
        self.gate = gate  # awaited before each decision: back-pressure from the learner
        self.trajectories: dict[str, Trajectory] = {}

    async def _decide(self, battle, decision, is_preview: bool) -> int:
        if self.gate is not None:
            g = self.gate()
            if g is not None:
                await g
        mask = pad_preview_mask(decision.mask) if is_preview else decision.mask
        tag = battle.battle_tag
        # Both sides of a self-play battle may share one PolicyServer: key by player too.
        action, logp = await self.policy.act(self.username + "|" + tag, decision.obs, mask, is_preview)
        if self.sink is not None:
            traj = self.trajectories.get(tag)
            if traj is None:
                traj = self.trajectories[tag] = Trajectory(self.agent, self.policy.version, opponent=self.opponent)
            traj.obs.append(decision.obs)
            traj.mask.append(mask)
            traj.is_preview.append(is_preview)
            traj.actions.append(action)
            traj.logp.append(logp)
        return action

    def choose_preview(self, battle, decision):
        return self._decide(battle, decision, True)

    def choose_turn(self, battle, decision):
        return self._decide(battle, decision, False)

    def on_battle_end(self, battle) -> None:
        tag = battle.battle_tag
        self.policy.forget(self.username + "|" + tag)
        traj = self.trajectories.pop(tag, None)
        if traj is not None and self.sink is not None and len(traj):
            traj.reward = 1.0 if battle.won else (-1.0 if battle.lost else 0.0)
            self.sink(traj)
