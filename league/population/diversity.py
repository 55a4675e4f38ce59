"""How different the league's policies are: the pairwise total-variation distance
between members' policies on a fixed set of recorded states.

The state set (the "probe") is shipped with the code: ``probe_battles.json.gz`` beside
this file holds both sides' protocol lines of 24 battles (48 sides, 344 decisions) played with the shipped Reg C
pool by epsilon-maxdamage players (``mixed``: a mix of sensible and random choices, so
the states cover leads, mid-game and end-game positions), made by::

    python -m tools.bc generate -n 24 --p1 mixed --p2 mixed --seed 17 --servers 1 --concurrency 4 --out LOGS
    python -m tools.gen_probe LOGS

Each side is replayed into observations and legality masks with the current encoder
(league/battle/replay.py, league/battle/context.py ``make_decision``), as a live player
would see them, so the probe follows any change of the observation layout. Why shipped
and not collected from the run: the same states for every run and every resume (the
numbers of two runs can be compared), nothing to send between processes or to persist,
and no run is needed to test it. The cost: a run with another format or pool measures
its policies on Reg C states (still valid inputs; the distance is a probe, not a
performance measure).

A member's policy on the probe: its network run over each side's decisions in order
from the initial GRU state (the core sees the same history a player would), softmax
over the legal joint actions. The distance between two policies is the mean over
states of the total variation ½ Σ_a |π₁(a|s) − π₂(a|s)| (in [0, 1], symmetric, finite
where KL is not when one policy puts ~0 on an action the other plays).
"""

from __future__ import annotations

import gzip
import json
from functools import lru_cache
from pathlib import Path

import numpy as np

PROBE_PATH = Path(__file__).resolve().parent / "probe_battles.json.gz"


@lru_cache(maxsize=2)
def probe_states(path: str = str(PROBE_PATH)):
    """(obs [T, B, OBS_DIM], mask [T, B, 2025] bool, is_preview [T, B], valid [T, B]):
    the decisions of each recorded side (a column, right-padded), as torch tensors."""
    import torch

    from league.battle.actions import JOINT_ACTIONS
    from league.battle.context import make_decision
    from league.battle.obs import OBS_DIM
    from league.battle.replay import replay

    sides = json.loads(gzip.decompress(Path(path).read_bytes()))["sides"]
    cols = []
    for s in sides:
        col = []
        for battle, ctx in replay(s["lines"], s["username"]):
            d = make_decision(battle, ctx)
            assert d is not None and d.obs is not None  # (replay stops at choices; encoded by default)
            mask = np.zeros(JOINT_ACTIONS, dtype=bool)
            mask[: len(d.mask)] = d.mask
            col.append((d.obs.copy(), mask, d.kind == "preview"))
        if col:
            cols.append(col)
    T, B = max(len(c) for c in cols), len(cols)
    obs = np.zeros((T, B, OBS_DIM), dtype=np.float32)
    mask = np.ones((T, B, JOINT_ACTIONS), dtype=bool)  # padding: all legal (never read)
    prev = np.zeros((T, B), dtype=bool)
    valid = np.zeros((T, B), dtype=bool)
    for b, col in enumerate(cols):
        for t, (o, m, p) in enumerate(col):
            obs[t, b], mask[t, b], prev[t, b], valid[t, b] = o, m, p, True
    return tuple(torch.from_numpy(x) for x in (obs, mask, prev, valid))


def policy_vector(net, states=None) -> np.ndarray:
    """A network's policy on the probe: the probabilities of every (state, legal action)
    pair, in the probe's order, as one float64 vector (illegal actions are 0 for every
    policy, so they need no room)."""
    import torch

    obs, mask, prev, valid = states if states is not None else probe_states()
    with torch.no_grad():
        logits, _, _ = net(obs, mask, prev, net.initial_state(obs.shape[1]), valid=valid)
        probs = torch.softmax(logits[valid].double(), dim=-1)
    return probs[mask[valid]].numpy()


def pairwise_tv(vectors: np.ndarray, n_states: int) -> np.ndarray:
    """[N, N] mean total-variation distances between N policies given as rows of
    ``vectors`` (each the concatenation of its per-state distributions over the same
    ``n_states`` states): ½ Σ |p − q| summed over all entries, divided by the states."""
    v = np.asarray(vectors, dtype=np.float64)
    n = v.shape[0]
    d = np.zeros((n, n))
    for i in range(n):
        d[i, i + 1 :] = np.abs(v[i + 1 :] - v[i]).sum(axis=1) / (2.0 * n_states)
    return d + d.T


def summarize(d: np.ndarray) -> dict:
    """One number per round: the mean (and the smallest) distance over pairs of distinct
    policies. Members exactly 0 apart play the same policy on every probe state (the main
    agent right after a snapshot of it, an exploiter's victim frozen from the same
    checkpoint as a snapshot): they count once, so ``min_tv`` near 0 means two different
    networks that play alike (collapse), not a copy."""
    n = d.shape[0]
    keep: list[int] = []
    for i in range(n):
        if all(d[i, j] > 0.0 for j in keep):
            keep.append(i)
    if len(keep) < 2:
        return {"mean_tv": None, "min_tv": None, "distinct": len(keep)}
    off = d[np.ix_(keep, keep)][np.triu_indices(len(keep), 1)]
    return {"mean_tv": float(off.mean()), "min_tv": float(off.min()), "distinct": len(keep)}


class DiversityProbe:
    """Members' policies on the probe, cached by (member id, checkpoint path): a frozen
    member is run once; the main agent again whenever its checkpoint changes."""

    def __init__(self, path: str | Path = PROBE_PATH):
        self.path = str(path)
        self.cache: dict[str, tuple[str, np.ndarray]] = {}

    @property
    def n_states(self) -> int:
        return int(probe_states(self.path)[3].sum())

    def vector(self, mid: str, checkpoint: str) -> np.ndarray:
        from league.checkpoint import load_policy_net

        hit = self.cache.get(mid)
        if hit is None or hit[0] != checkpoint:
            hit = (checkpoint, policy_vector(load_policy_net(checkpoint), probe_states(self.path)))
            self.cache[mid] = hit
        return hit[1]

    def measure(self, members: list[tuple[str, str]]) -> tuple[list[str], np.ndarray, list[str]]:
        """(ids, [N, N] distances, skipped): ``members`` are (id, checkpoint); one whose
        file cannot be read (a checkpoint rotated away meanwhile) is skipped, by name."""
        from league.checkpoint import CheckpointError

        ids, vecs, skipped = [], [], []
        for mid, path in members:
            try:
                vecs.append(self.vector(mid, path))
                ids.append(mid)
            except (CheckpointError, OSError):
                skipped.append(mid)
        keep = set(ids)
        self.cache = {k: v for k, v in self.cache.items() if k in keep}
        d = pairwise_tv(np.stack(vecs), self.n_states) if vecs else np.zeros((0, 0))
        return ids, d, skipped
