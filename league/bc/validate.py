"""Replay reconstruction checked against the truth: battles of our own agents, recorded
with their requests and choices (league/bc/record.py), read back as replays (the public
protocol only: ``as_replay``) and rebuilt (league/bc/replays.py). For every decision the
rebuilt mask is compared with Showdown's own request's, and every label with the
recorded choice: a whole label must be the action chosen, a partial one's set must hold
it. Actions are compared by what they do (the Pokemon brought, the move, target and tera,
the Pokemon switched in), not by index: a replay's brought order can differ from the real
one where a back was never shown.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from league.battle.actions import SLOT_ACTIONS, SWITCH_OFFSET, decode_preview, decode_slot, split_joint
from league.battle.context import make_decision
from league.battle.replay import replay
from league.bc.record import as_replay, read_log
from league.bc.replays import ILLEGAL, ReplayCounts, ReplaySource, SideReplay, reconstruct


def recorded_choices(path) -> dict[str, list]:
    """Per role: (kind, action, request view, mask) of every choice the log recorded,
    the view and mask from Showdown's own requests."""
    from league.bc.dataset import LogError, split_sides

    out: dict[str, list] = {}
    for username, _, first, lines in split_sides(path, read_log(path))[1]:
        chosen: dict[int | None, int] = {}
        last = None
        for no, line in enumerate(lines, first):
            if line.startswith("|request|"):
                last = no
            elif line.startswith("|choose|"):
                chosen[last] = int(line.split("|")[3])
        seq: list = []
        role = None
        for battle, ctx in replay(lines, username, first_line=first):
            if ctx.line in chosen:
                d = make_decision(battle, ctx, encode=False)
                if d is None:
                    raise LogError(f"{path}:{ctx.line}: a choice recorded where the request asks for nothing")
                seq.append((d.kind, chosen[ctx.line], d.view, d.mask))
                role = battle.player_role
        if role is not None:
            out[role] = seq
    return out


def meaning(kind: str, action: int, view) -> tuple:
    """What an action does, independent of index conventions: the Pokemon chosen at team
    preview; per slot the move id, target and b (tera or mega), or the Pokemon switched in."""
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


def in_label(kind: str, labels: np.ndarray, our_view, theirs: int, their_view) -> bool:
    """The recorded choice is one of those a (partial) label leaves: some action of the
    label's set means what the recorded one does."""
    return any(same_choice(kind, int(a), our_view, theirs, their_view) for a in np.flatnonzero(labels))


def in_label_without_sheets(kind: str, labels: np.ndarray, mask: np.ndarray, our_view, theirs: int, their_view) -> bool:
    """``in_label`` for a replay without open team sheets: a slot whose recorded move the
    log never shows (so the sheet rebuilt from the log lacks it) must be open in the label
    (it allows every order the rebuilt mask has there beside the label's other slot: the
    label says nothing of it); so must a slot whose recorded order terastallizes where the
    rebuilt request offers no tera (the log never showed its tera type: the slot did not
    act, e.g. a Tatsugiri that went into Dondozo's mouth that turn), and the label must
    then hold the same order without it;
    every other slot's recorded order must be one the label allows."""
    if kind == "preview":
        return in_label(kind, labels, our_view, theirs, their_view)
    options = [meaning(kind, int(a), our_view) for a in np.flatnonzero(labels)]
    legal = [meaning(kind, int(a), our_view) for a in np.flatnonzero(mask)]
    recorded = meaning(kind, theirs, their_view)
    for slot, want in enumerate(recorded):
        allowed = {o[slot] for o in options}
        ours = {m["id"] for m in our_view.active[slot]["moves"]} if slot < len(our_view.active) else set()
        unknown_move = want[0] == "move" and want[1] not in ours
        # open: every order of this slot the mask allows beside the label's other slot
        other = {o[1 - slot] for o in options}
        possible = {o[slot] for o in legal if o[1 - slot] in other}
        open_slot = allowed == possible
        offered = slot < len(our_view.gimmick) and bool(our_view.gimmick[slot])
        if want[0] == "move" and want[3] and open_slot and not offered:
            want = (*want[:3], False)  # a gimmick the rebuilt request cannot offer
        if want not in allowed and not (unknown_move and open_slot):
            return False
    return True


def reindexed(mask: np.ndarray, ours: list[str], theirs: list[str]) -> np.ndarray:
    """Our joint mask with switch k meaning their brought[k] (our unrevealed backs: theirs never shown)."""
    if len(mask) != SLOT_ACTIONS * SLOT_ACTIONS:
        return mask
    unseen = [b for b in theirs if b not in ours]
    idx = list(range(SLOT_ACTIONS))
    for k, ident in enumerate(ours):
        idx[SWITCH_OFFSET + theirs.index(ident if ident in theirs else unseen.pop(0))] = SWITCH_OFFSET + k
    return mask.reshape(SLOT_ACTIONS, SLOT_ACTIONS)[np.ix_(idx, idx)].reshape(-1)


@dataclass
class Agreement:
    """One recorded battle read back as a replay, against what was recorded."""

    name: str
    counts: ReplayCounts  # the replay's counts, as parse-replays reports them
    sides: list[SideReplay]
    b_labels: int = 0  # whole turn labels with a slot's b = 1 (tera or mega)
    # (role, log line) of each disagreement: a rebuilt mask not Showdown's, a label that does not
    # hold the recorded choice, a shown order called illegal; and sides whose decisions were not
    # found one for one (role, found, recorded)
    wrong_mask: list = field(default_factory=list)
    wrong_label: list = field(default_factory=list)
    illegal: list = field(default_factory=list)
    wrong_count: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.wrong_mask or self.wrong_label or self.illegal or self.wrong_count)


def agreement(path, sheets: bool = True) -> Agreement:
    """A recorded log (tools.bc generate) read back as a replay and checked decision by
    decision; ReplayError when the replay is rejected. ``sheets=False``: the replay
    without open team sheets (its sheets rebuilt from the log offer only the moves it
    shows, in another order: masks are not compared, labels are, by what they do)."""
    path = Path(path)
    name = path.name.removesuffix(".gz").removesuffix(".log")
    record = json.dumps({"id": name, "log": as_replay(path, sheets)})
    _, sides = reconstruct(ReplaySource(f"{path} (as a replay)", path, record))
    out = Agreement(name, ReplayCounts(name, sides[0].format), sides)
    recorded = recorded_choices(path)
    for side in sides:
        real = recorded.get(side.role, [])
        if len(side.decisions) != len(real):
            out.wrong_count.append((side.role, len(side.decisions), len(real)))
        for ours, (kind, action, view, mask) in zip(side.decisions, real):
            out.counts.add(ours)
            if ours.kind != kind:
                out.wrong_count.append((side.role, ours.line, ours.kind, kind))
                continue
            if sheets and not np.array_equal(reindexed(ours.mask, ours.view.brought, view.brought), mask):
                out.wrong_mask.append((side.role, ours.line))
            if ours.labels is None:
                if ours.reason == ILLEGAL:
                    out.illegal.append((side.role, ours.line))
                continue
            if not (
                in_label(kind, ours.labels, ours.view, action, view)
                if sheets
                else in_label_without_sheets(kind, ours.labels, ours.mask, ours.view, action, view)
            ):
                out.wrong_label.append((side.role, ours.line))
            elif ours.label is not None and kind == "turn":
                out.b_labels += sum(len(m) == 4 and m[3] for m in meaning(kind, action, view))
    return out


def validate(log_dir, on_battle=None, sheets: bool = True) -> dict:
    """Every recorded log of ``log_dir`` (``*.log``, ``*.log.gz``) checked as a replay
    (with open team sheets, or without: ``agreement``): totals, the shares rebuilt and
    every disagreement (file, role, log line)."""
    from league.bc.replays import ReplayError

    logs = sorted(p for p in Path(log_dir).iterdir() if p.name.endswith((".log", ".log.gz")))
    if not logs:
        raise ReplayError(f"{log_dir}: no *.log battle logs; record some with python -m tools.bc generate")
    tot: Counter = Counter()
    problems: dict[str, list] = {"wrong_mask": [], "wrong_label": [], "illegal": [], "wrong_count": []}
    rejected: list[str] = []
    for path in logs:
        try:
            a = agreement(path, sheets)
        except ReplayError as e:
            rejected.append(str(e))
            continue
        c = a.counts
        tot.update(
            battles=1,
            decisions=c.decisions,
            reconstructed=c.reconstructed,
            partial=c.partial,
            choices=c.choices,
            shown=c.shown,
            rebuilt=c.rebuilt,
            b_labels=a.b_labels,
        )
        for k, found in problems.items():
            found.extend((a.name, *x) for x in getattr(a, k))
        if on_battle is not None:
            on_battle(a)
    n = tot["decisions"]
    return {
        "logs": len(logs),
        "open_team_sheets": sheets,
        "rejected": len(rejected),
        **{k: tot[k] for k in ("battles", "decisions", "reconstructed", "partial", "choices", "shown", "rebuilt")},
        "shown_reconstructed": round(tot["rebuilt"] / max(tot["shown"], 1), 4),
        "all_reconstructed": round((tot["reconstructed"] + tot["partial"]) / max(n, 1), 4),
        "labels_checked": tot["reconstructed"] + tot["partial"],
        **{k: len(v) for k, v in problems.items()},
        "ok": not rejected and not any(problems.values()),
        "first_problems": {k: v[:20] for k, v in problems.items() if v}
        | ({"rejected": rejected[:20]} if rejected else {}),
    }
