"""Real observations for unit tests: the decisions of the battles recorded in
tests/data/recorded_battles.json (both sides of two battles with the shipped pool),
replayed and encoded as a live player would (no server needed)."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch

from league.battle.actions import JOINT_ACTIONS
from league.battle.context import make_decision
from league.battle.replay import replay
from league.bc.record import as_replay

DATA = Path(__file__).resolve().parent / "data" / "recorded_battles.json"


@lru_cache(maxsize=1)
def recordings() -> list[dict]:
    return json.loads(DATA.read_text())


@lru_cache(maxsize=1)
def decisions() -> list[list[tuple[np.ndarray, np.ndarray, bool]]]:
    """Per recorded side: (obs, mask padded to 2025, is_preview) of each decision."""
    out = []
    for rec in recordings():
        side = []
        for battle, ctx in replay(rec["lines"], rec["username"]):
            d = make_decision(battle, ctx)
            mask = np.zeros(JOINT_ACTIONS, dtype=bool)
            mask[: len(d.mask)] = d.mask
            side.append((d.obs.copy(), mask, d.kind == "preview"))
        out.append(side)
    return out


def recorded_steps(T: int, B: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """obs [T, B, OBS_DIM], mask [T, B, 2025], is_preview [T, B]: the first T decisions
    of B recorded sides (B <= 4)."""
    sides = decisions()
    assert B <= len(sides) and all(len(s) >= T for s in sides[:B])
    obs = torch.from_numpy(np.stack([np.stack([s[t][0] for s in sides[:B]]) for t in range(T)]))
    mask = torch.from_numpy(np.stack([np.stack([s[t][1] for s in sides[:B]]) for t in range(T)]))
    prev = torch.tensor([[s[t][2] for s in sides[:B]] for t in range(T)])
    return obs, mask, prev


# ---------------------------------------------------------------- recorded logs read back as replays
def recorded_choices(path) -> dict[str, list]:
    """Per role: (kind, action, request view, mask) of every choice the log recorded,
    the view and mask from Showdown's own requests."""
    from league.bc.dataset import _split_sides

    out = {}
    for username, _, first, lines in _split_sides(path, Path(path).read_text())[1]:
        chosen, last = {}, None
        for no, line in enumerate(lines, first):
            if line.startswith("|request|"):
                last = no
            elif line.startswith("|choose|"):
                chosen[last] = int(line.split("|")[3])
        seq, role = [], None
        for battle, ctx in replay(lines, username, first_line=first):
            if ctx.line in chosen:
                d = make_decision(battle, ctx, encode=False)
                seq.append((d.kind, chosen[ctx.line], d.view, d.mask))
                role = battle.player_role
        out[role] = seq
    return out


def meaning(kind: str, action: int, view) -> tuple:
    """What an action does, independent of index conventions: the Pokemon chosen at team
    preview; per slot the move id, target and b (tera or mega), or the Pokemon switched in."""
    from league.battle.actions import decode_preview, decode_slot, split_joint

    if kind == "preview":
        names = [view.side[p]["details"].split(",")[0] for p in decode_preview(action)]
        return frozenset(names[:2]), frozenset(names[2:])
    out = []
    for slot, a in enumerate(split_joint(action)):
        what, i, target, b = decode_slot(a)
        out.append(
            (what, view.active[slot]["moves"][i]["id"], target, b)
            if what == "move"
            else (what, view.brought[i])
            if what == "switch"
            else (what,)
        )
    return tuple(out)


def same_choice(kind: str, ours: int, our_view, theirs: int, their_view) -> bool:
    return meaning(kind, ours, our_view) == meaning(kind, theirs, their_view)


def reindexed(mask: np.ndarray, ours: list[str], theirs: list[str]) -> np.ndarray:
    """Our joint mask with switch k meaning their brought[k] (our unrevealed backs: theirs never shown)."""
    from league.battle.actions import SLOT_ACTIONS, SWITCH_OFFSET

    if len(mask) != SLOT_ACTIONS * SLOT_ACTIONS:
        return mask
    unseen = [b for b in theirs if b not in ours]
    idx = list(range(SLOT_ACTIONS))
    for k, ident in enumerate(ours):
        idx[SWITCH_OFFSET + theirs.index(ident if ident in theirs else unseen.pop(0))] = SWITCH_OFFSET + k
    return mask.reshape(SLOT_ACTIONS, SLOT_ACTIONS)[np.ix_(idx, idx)].reshape(-1)


def in_label(kind: str, labels: np.ndarray, our_view, theirs: int, their_view) -> bool:
    """The recorded choice is one of those a (partial) label leaves: some action of the
    label's set means what the recorded one does."""
    return any(same_choice(kind, int(a), our_view, theirs, their_view) for a in np.flatnonzero(labels))


def replay_agreement(path, tmp_dir) -> dict:
    """A recorded log read back as a replay (league.bc.replays) against its recorded
    requests and choices: decisions, whole labels (``reconstructed``), partial ones, and
    the lines where a rebuilt mask is not Showdown's or the recorded action is not the
    label's (a whole label: that action; a partial one: one of its set). ``counts``: the
    replay's ReplayCounts (choices shown and rebuilt, ...)."""
    from league.bc.replays import ILLEGAL, ReplayCounts, ReplaySource, reconstruct

    path = Path(path)
    recorded = recorded_choices(path)
    src = Path(tmp_dir) / f"{path.stem}-replay.log"
    src.write_text(as_replay(path))
    _, sides = reconstruct(ReplaySource(str(src), src))
    out = {
        "decisions": 0,
        "reconstructed": 0,
        "partial": 0,
        "b_labels": 0,
        "wrong_mask": [],
        "wrong_label": [],
        "sides": sides,
        "counts": ReplayCounts(path.stem),
    }
    for side in sides:
        real = recorded[side.role]
        assert len(side.decisions) == len(real), (path.name, side.role, len(side.decisions), len(real))
        for ours, (kind, action, view, mask) in zip(side.decisions, real):
            assert ours.kind == kind, (path.name, ours.line)
            out["decisions"] += 1
            out["counts"].add(ours)
            if not np.array_equal(reindexed(ours.mask, ours.view.brought, view.brought), mask):
                out["wrong_mask"].append((side.role, ours.line))
            if ours.labels is None:
                assert ours.reason != ILLEGAL, (path.name, ours.line)
                continue
            if ours.label is None:
                out["partial"] += 1
                assert 1 < ours.labels.sum() <= ours.mask.sum(), (path.name, ours.line)  # a set, within the mask
                if not in_label(kind, ours.labels, ours.view, action, view):
                    out["wrong_label"].append((side.role, ours.line))
                continue
            out["reconstructed"] += 1
            if not same_choice(kind, ours.label, ours.view, action, view):
                out["wrong_label"].append((side.role, ours.line))
            elif kind == "turn":
                out["b_labels"] += sum(len(m) == 4 and m[3] for m in meaning(kind, action, view))
    return out
