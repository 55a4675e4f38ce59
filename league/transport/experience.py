"""Experience in shared memory, from the simulator to one learner.

Wiring (created in ``league.run.connect_components``):
- ``SharedExperience``: preallocated slots of whole trajectories in shared-memory
  tensors (torch.multiprocessing); written by the simulator, read by the learner. The
  simulator takes a free slot before writing: when the learner is behind, there is
  none, the write waits and the players pause, so collection slows instead of eating
  memory;
- a pyzmq PUSH/PULL socket (simulator -> learner) carries one msgpack message per
  filled slot: ``{"slot", "agent", "version", "length", "reward", "opponent", "battle"}``.

Each slot has a state in shared memory, the only record of who holds it: ``FREE``,
``WRITING`` (taken by the simulator: only it moves FREE -> WRITING -> FILLED),
``FILLED`` (complete, announced to the learner: only it moves FILLED -> FREE once the
batch is copied out). With several simulator shards (``sim.shards``) each owns a range
of the slots (``slot_range``): one writer per slot still. No queue or lock is shared, so a process killed at any instant
leaves nothing wedged: a learner that starts (again) picks up every ``FILLED`` slot
from shared memory, a message that arrives twice or late is ignored, and after a
simulator dies ``reclaim_writing`` frees the slots it held.

Trajectories longer than ``t_max`` decisions are dropped and counted (rare: a VGC
battle is ~10-30 decisions).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import torch

from league.battle.actions import JOINT_ACTIONS
from league.battle.obs import OBS_DIM
from league.seeding import stable_seed
from league.transport.data import Batch, Trajectory
from league.transport.messages import SlotMessage

FREE, WRITING, FILLED = 0, 1, 2


class ExperienceSink(Protocol):
    """Where a simulator puts a learning trajectory (shared-memory slots on this machine,
    a learner actor's on Ray); False: not now (it stays pending, the players pause)."""

    def __call__(self, traj: Trajectory) -> bool: ...


class WeightsSource(Protocol):
    """Where a simulator reads newer weights: SharedWeights here, the learner actor on Ray."""

    def read_if_newer(self, have: int, owner: int | None = None) -> tuple[torch.Tensor, int] | None:
        """(flat weights, version) newer than ``have`` (published by ``owner``), or None."""


class Lane(WeightsSource, Protocol):
    """An exploiter lane's channels for the simulator: its sink (``put``) and its weights."""

    put: ExperienceSink


def slot_range(n_slots: int, shard: int, shards: int) -> tuple[int, int]:
    """The slots simulator shard ``shard`` of ``shards`` owns (``lo:hi``): each shard
    writes only its own, so no two writers race for a slot; one shard owns them all."""
    return n_slots * shard // shards, n_slots * (shard + 1) // shards


def agent_key(agent: str) -> int:
    """A nonzero int64 naming a learning agent in shared memory (slot and weights owner):
    a lane reused by the next exploiter holds the previous one's data under another key."""
    return stable_seed("agent", agent, bits=62) + 1


class SharedExperience:
    """Preallocated trajectory slots in shared memory ([S, T_max, ...])."""

    def __init__(self, n_slots: int, t_max: int):
        self.n_slots, self.t_max = n_slots, t_max
        self.obs = torch.zeros(n_slots, t_max, OBS_DIM, dtype=torch.float32).share_memory_()
        self.mask = torch.zeros(n_slots, t_max, JOINT_ACTIONS, dtype=torch.bool).share_memory_()
        self.is_preview = torch.zeros(n_slots, t_max, dtype=torch.bool).share_memory_()
        self.actions = torch.zeros(n_slots, t_max, dtype=torch.long).share_memory_()
        self.logp = torch.zeros(n_slots, t_max, dtype=torch.float32).share_memory_()
        self.reward = torch.zeros(n_slots, dtype=torch.float32).share_memory_()
        self.length = torch.zeros(n_slots, dtype=torch.long).share_memory_()
        self.version = torch.zeros(n_slots, dtype=torch.long).share_memory_()  # policy version that played it
        self.battle = torch.zeros(n_slots, dtype=torch.long).share_memory_()  # self-play pairing key, 0: none
        self.owner = torch.zeros(n_slots, dtype=torch.long).share_memory_()  # agent_key of the learner it is for
        self.order = torch.zeros(n_slots, t_max, dtype=torch.long).share_memory_()  # step keys in the battle
        self.group = torch.zeros(n_slots, dtype=torch.long).share_memory_()  # team-pair key, 0: unknown
        self.target = torch.full((n_slots, t_max), -1, dtype=torch.long).share_memory_()  # search's pick, -1: none
        self.state = torch.zeros(n_slots, dtype=torch.uint8).share_memory_()

    def _views(self) -> dict[str, np.ndarray]:
        """numpy views of the shared tensors, made once per process (not pickled): the
        simulator's per-battle writes through them cost a fraction of torch's indexing
        (experiments/issue31_infer_rnn)."""
        views = self.__dict__.get("_np")
        if views is None:
            views = self._np = {n: t.numpy() for n, t in vars(self).items() if isinstance(t, torch.Tensor)}
        return views

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state.pop("_np", None)  # views are this process's: another maps the tensors itself
        return state

    def write(self, slot: int, traj: Trajectory) -> None:
        T = len(traj)
        if T > self.t_max:
            raise ValueError(f"trajectory of {T} decisions exceeds t_max={self.t_max}")
        if traj.target and len(traj.target) != T:
            raise ValueError(f"trajectory of {T} decisions has {len(traj.target)} search targets")
        v = self._views()
        v["state"][slot] = WRITING
        np.stack(traj.obs, out=v["obs"][slot, :T])
        np.stack(traj.mask, out=v["mask"][slot, :T])
        v["is_preview"][slot, :T] = traj.is_preview
        v["actions"][slot, :T] = traj.actions
        v["logp"][slot, :T] = traj.logp
        v["reward"][slot] = traj.reward
        v["length"][slot] = T
        v["version"][slot] = traj.version
        v["owner"][slot] = agent_key(traj.agent)
        v["battle"][slot] = traj.battle
        v["group"][slot] = traj.group
        v["order"][slot, :T] = traj.order if traj.order else 0
        v["target"][slot, :T] = traj.target if traj.target else -1
        v["state"][slot] = FILLED

    def acquire(self, lo: int = 0, hi: int | None = None) -> int | None:
        """A free slot among ``lo:hi`` (a simulator shard's own, ``slot_range``), now
        WRITING (simulator side), or None when the learner is behind."""
        state = self._views()["state"]
        free = np.flatnonzero(state[lo:hi] == FREE)
        if len(free) == 0:
            return None
        slot = lo + int(free[0])
        state[slot] = WRITING
        return slot

    def offer(self, traj: Trajectory, push, lo: int = 0, hi: int | None = None) -> bool:
        """Write ``traj`` into a free slot of ``lo:hi`` and announce it on ``push`` (a
        SlotMessage): what every sink into these slots does. False: none is free."""
        slot = self.acquire(lo, hi)
        if slot is None:
            return False
        self.write(slot, traj)
        msg = SlotMessage(slot, traj.agent, traj.version, len(traj), traj.reward, traj.opponent, traj.battle)
        push.send(msg.to_wire())
        return True

    def n_filled(self) -> int:
        return int((self.state == FILLED).sum())

    def is_filled(self, slot: int) -> bool:
        return int(self.state[slot]) == FILLED

    def filled(self) -> list[int]:
        """Slots holding a complete trajectory not yet learned (a restarted learner's backlog)."""
        return [int(s) for s in torch.nonzero(self.state == FILLED).flatten()]

    def claim_filled(self, agent: str) -> tuple[list[int], int]:
        """The filled slots for ``agent``; filled slots for any other agent (a previous
        occupant of a reused exploiter lane) are freed, and counted."""
        mine: list[int] = []
        stale: list[int] = []
        key = agent_key(agent)
        for s in self.filled():
            (mine if int(self.owner[s]) == key else stale).append(s)
        if stale:
            self.release(stale)
        return mine, len(stale)

    def release(self, slots: list[int]) -> None:
        """Learned (learner side): the slots may be written again."""
        self.state[torch.tensor(slots, dtype=torch.long)] = FREE

    def reclaim_writing(self, lo: int = 0, hi: int | None = None) -> list[int]:
        """Slots a dead simulator (shard: its ``lo:hi``) held (WRITING): mark them FREE and return them."""
        slots = [lo + int(s) for s in torch.nonzero(self.state[lo:hi] == WRITING).flatten()]
        if slots:
            self.release(slots)
        return slots

    def batch(self, slots: list[int]) -> Batch:
        """Copy the given slots out into a time-major, right-padded Batch."""
        idx = torch.tensor(slots)
        lengths = self.length[idx]
        T = int(lengths.max())
        valid = torch.arange(T)[None, :] < lengths[:, None]  # [B, T]
        reward = torch.zeros(len(slots), T)
        reward[torch.arange(len(slots)), lengths - 1] = self.reward[idx]  # terminal reward
        mask = self.mask[idx, :T].clone()
        # Padding steps: make one action "legal" so log-softmax stays finite (valid=0 masks them out).
        mask[~valid] = False
        mask[..., 0] |= ~valid
        return Batch(
            obs=self.obs[idx, :T].transpose(0, 1).contiguous(),
            mask=mask.transpose(0, 1).contiguous(),
            is_preview=self.is_preview[idx, :T].transpose(0, 1).contiguous(),
            actions=(self.actions[idx, :T] * valid).transpose(0, 1).contiguous(),
            mu_logp=self.logp[idx, :T].transpose(0, 1).contiguous(),
            reward=reward.transpose(0, 1).contiguous(),
            valid=valid.transpose(0, 1).contiguous(),
            battle=self.battle[idx].clone(),
            order=(self.order[idx, :T] * valid).transpose(0, 1).contiguous(),
            group=self.group[idx].clone(),
            target=self.target[idx, :T].masked_fill(~valid, -1).transpose(0, 1).contiguous(),
        )


class SharedWeights:
    """The learner publishes its network as one flat shared tensor plus a version number."""

    def __init__(self, n_params: int, ctx):
        self.flat = torch.zeros(n_params, dtype=torch.float32).share_memory_()
        self.version = ctx.Value("q", 0)
        self.owner = ctx.Value("q", 0)  # agent_key of the learner that published them, 0: none yet
        self.lock = ctx.Lock()

    def publish(self, net: torch.nn.Module, owner: int = 0) -> int:
        # one flat vector where the network lives, then one copy to the host (not one per parameter)
        vec = torch.nn.utils.parameters_to_vector([p.detach() for p in net.parameters()]).float().cpu()
        with self.lock:
            self.flat.copy_(vec)
            self.owner.value = owner
            self.version.value += 1
            return self.version.value

    def read_if_newer(self, have: int, owner: int | None = None) -> tuple[torch.Tensor, int] | None:
        """Weights newer than version ``have``; with ``owner``, only when that learner
        published them (not the previous exploiter of a reused lane)."""
        v = self.version.value
        if v <= have:
            return None
        with self.lock:
            if owner is not None and self.owner.value != owner:
                return None
            return self.flat.clone(), self.version.value
