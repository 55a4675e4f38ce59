"""Action codec and legality masks for VGC doubles, built from Showdown's own request.

Action spaces
-------------
Per active slot, 45 orders (``SLOT_ACTIONS``):

    index  0..39  move m (0..3) x target t (0..4) x tera b (0/1):  10*m + 2*t + b
                  b is the format's once-per-battle transformation with the move:
                  Terastallization in Scarlet/Violet formats, Mega Evolution in
                  Pokemon Champions formats (whichever the request offers the slot)
                  target t is Showdown's target location t-2, i.e.
                  t=0 -> -2 (our slot b), 1 -> -1 (our slot a), 2 -> 0 (no target),
                  3 -> 1 (foe slot a), 4 -> 2 (foe slot b)
    index 40..43  switch to brought Pokemon k (0..3), k in team-preview order (stable
                  for the whole battle, whatever the current positions are)
    index 44      pass

A turn is the joint pair of both slots: ``joint = a0 * 45 + a1`` (2025 actions).
Team preview is 90 actions: ``15`` unordered lead pairs x ``6`` unordered back pairs
of the remaining four, ``index = lead_pair * 6 + back_pair`` (pairs in lexicographic
order of team positions).

Legality is read from the request JSON Showdown sends (``battle.last_request``),
mirroring the checks in Showdown's ``sim/side.ts`` (chooseMove / chooseSwitch /
choosePass / clearChoice):
- a fainted or commanding (Commander) slot can only pass; otherwise pass is illegal
  in a move request;
- disabled / out-of-PP moves are illegal (Showdown marks them ``disabled``);
- a move's targets follow its ``target`` type (``normal``, ``any``, ``adjacentFoe``,
  ``adjacentAlly``, ``adjacentAllyOrSelf`` need one; the rest take none); targets on
  empty or fainted slots are dropped while another target remains;
- a *locked* move (Outrage, Rollout, recharge, ...) comes without a ``target`` field;
  Showdown then refuses any target and we send a bare ``move 1`` (sending one by name,
  as poke-env does, makes Showdown ask for a target forever);
- ``trapped`` and ``maybeTrapped`` forbid switching (maybeTrapped conservatively: an
  attempt could be refused, which costs a Showdown error);
- tera only where ``canTerastallize`` is set, mega only where ``canMegaEvo`` is set
  (Showdown's ``canMegaEvoX``/``Y`` are not offered: no format the league plays has
  them), and never on both slots in one turn;
- both slots never switch to the same Pokemon;
- in a forced-switch request exactly ``min(#slots that must switch, #healthy bench)``
  slots switch and the others pass, as Showdown's ``clearChoice`` counts them;
- Revival Blessing (``reviving``) picks a fainted team member instead.

Choices are sent as ``/choose move 1 2 terastallize, switch 3`` (``move 1 2 mega`` in
Champions formats) with move and switch *numbers*, never names, so what we send is
exactly what the mask allowed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any

import numpy as np

N_MOVES = 4
N_TARGETS = 5
N_SWITCHES = 4
MOVE_ACTIONS = N_MOVES * N_TARGETS * 2  # 40
SWITCH_OFFSET = MOVE_ACTIONS  # 40
PASS = SWITCH_OFFSET + N_SWITCHES  # 44
SLOT_ACTIONS = PASS + 1  # 45
JOINT_ACTIONS = SLOT_ACTIONS * SLOT_ACTIONS  # 2025

TEAM_SIZE = 6
LEAD_PAIRS: list[tuple[int, int]] = list(combinations(range(TEAM_SIZE), 2))  # 15
BACK_PAIRS_OF_4: list[tuple[int, int]] = list(combinations(range(4), 2))  # 6, indices into the remaining four
PREVIEW_ACTIONS = len(LEAD_PAIRS) * len(BACK_PAIRS_OF_4)  # 90

NO_TARGET = 2  # target index of Showdown location 0
CHOOSABLE_TARGETS = frozenset({"normal", "any", "adjacentFoe", "adjacentAlly", "adjacentAllyOrSelf"})


# ---------------------------------------------------------------- index maths
def move_action(move: int, target: int, tera: bool) -> int:
    return 10 * move + 2 * target + int(tera)


def switch_action(k: int) -> int:
    return SWITCH_OFFSET + k


def decode_slot(a: int) -> tuple[str, int, int, bool]:
    """-> (kind, move_or_switch_index, target_index, tera); kind in move/switch/pass."""
    if a < MOVE_ACTIONS:
        return "move", a // 10, (a % 10) // 2, bool(a % 2)
    if a < PASS:
        return "switch", a - SWITCH_OFFSET, NO_TARGET, False
    if a == PASS:
        return "pass", -1, NO_TARGET, False
    raise ValueError(f"slot action {a} out of range [0, {SLOT_ACTIONS})")


def joint_action(a0: int, a1: int) -> int:
    return a0 * SLOT_ACTIONS + a1


def split_joint(j: int) -> tuple[int, int]:
    if not 0 <= j < JOINT_ACTIONS:
        raise ValueError(f"joint action {j} out of range [0, {JOINT_ACTIONS})")
    return divmod(j, SLOT_ACTIONS)


def preview_action(leads: tuple[int, int], backs: tuple[int, int]) -> int:
    """Team positions (0..5) of the two leads and the two backs -> index in 0..89."""
    l0, l1 = sorted(leads)
    p = LEAD_PAIRS.index((l0, l1))
    rest = [i for i in range(TEAM_SIZE) if i not in (l0, l1)]
    b0, b1 = sorted(rest.index(b) for b in backs)
    return p * len(BACK_PAIRS_OF_4) + BACK_PAIRS_OF_4.index((b0, b1))


def decode_preview(idx: int) -> tuple[int, int, int, int]:
    """Index in 0..89 -> team positions (lead, lead, back, back), 0-based."""
    if not 0 <= idx < PREVIEW_ACTIONS:
        raise ValueError(f"team-preview action {idx} out of range [0, {PREVIEW_ACTIONS})")
    p, q = divmod(idx, len(BACK_PAIRS_OF_4))
    l0, l1 = LEAD_PAIRS[p]
    rest = [i for i in range(TEAM_SIZE) if i not in (l0, l1)]
    b0, b1 = BACK_PAIRS_OF_4[q]
    return l0, l1, rest[b0], rest[b1]


def preview_message(idx: int) -> str:
    return "/team " + "".join(str(i + 1) for i in decode_preview(idx))


# Precomputed cross-slot tables for the joint mask.
_IS_TERA = np.zeros(SLOT_ACTIONS, dtype=bool)
_IS_TERA[1:MOVE_ACTIONS:2] = True
_IS_SWITCH = np.zeros(SLOT_ACTIONS, dtype=bool)
_IS_SWITCH[SWITCH_OFFSET:PASS] = True
TERA_BOTH = np.outer(_IS_TERA, _IS_TERA)
SAME_SWITCH = np.zeros((SLOT_ACTIONS, SLOT_ACTIONS), dtype=bool)
for _k in range(N_SWITCHES):
    SAME_SWITCH[SWITCH_OFFSET + _k, SWITCH_OFFSET + _k] = True
SWITCH_COUNT = _IS_SWITCH[:, None].astype(np.int8) + _IS_SWITCH[None, :].astype(np.int8)
_JOINT_FORBIDDEN = TERA_BOTH | SAME_SWITCH
_JOINT_ALLOWED = ~_JOINT_FORBIDDEN
_SWITCHES_ARE = [SWITCH_COUNT == k for k in range(N_SWITCHES + 1)]  # joint orders with exactly k switches

# Decoded tables for the hot path.
_SLOT_DECODED = [decode_slot(a) for a in range(SLOT_ACTIONS)]


# ---------------------------------------------------------------- request view
def _fainted(mon: dict) -> bool:
    return mon.get("condition", "").endswith(" fnt") or mon.get("condition") == "0 fnt"


@dataclass
class RequestView:
    """What the codec needs from one Showdown request (parsed once per decision)."""

    kind: str  # "preview", "move", "switch", "wait"
    side: list[dict]  # request["side"]["pokemon"]
    active: list[dict]  # request["active"] (move requests)
    force_switch: list[bool]
    brought: list[str]  # idents of the four brought Pokemon, team-preview order
    position: dict[str, int]  # ident -> current index in side
    gimmick: list[str]  # per active slot, the word b = 1 adds: "terastallize", "mega" or "" (none offered)

    @classmethod
    def from_request(cls, request: dict[str, Any], brought: Sequence[str] | None) -> RequestView:
        side = request.get("side", {}).get("pokemon", [])
        if request.get("wait"):
            kind = "wait"
        elif request.get("teamPreview"):
            kind = "preview"
        elif request.get("forceSwitch"):
            kind = "switch"
        else:
            kind = "move"
        position = {m["ident"]: i for i, m in enumerate(side)}
        if brought is None or kind == "preview":
            brought = [m["ident"] for m in side[:N_SWITCHES]]
        active = request.get("active", [])
        return cls(
            kind,
            side,
            active,
            list(request.get("forceSwitch", [])),
            list(brought),
            position,
            [_gimmick(a) for a in active],
        )


def _gimmick(act: dict | None) -> str:
    """The transformation a move request offers one slot (tera or mega), "" for none."""
    if not act:
        return ""
    if act.get("canTerastallize"):
        return "terastallize"
    if act.get("canMegaEvo"):
        return "mega"
    return ""


def _slot_targets(target_type: str | None, slot: int, ally_alive: bool, foe_alive: Sequence[bool]) -> list[int]:
    """Legal target indices (0..4) for a move of `target_type` used from our slot `slot`."""
    if target_type not in CHOOSABLE_TARGETS:
        return [NO_TARGET]
    self_t = 1 if slot == 0 else 0  # location -1 for slot a, -2 for slot b
    ally_t = 0 if slot == 0 else 1
    foes = [3, 4]
    if target_type in ("normal", "any"):
        cands = [(t, foe_alive[t - 3]) for t in foes] + [(ally_t, ally_alive)]
    elif target_type == "adjacentFoe":
        cands = [(t, foe_alive[t - 3]) for t in foes]
    elif target_type == "adjacentAlly":
        cands = [(ally_t, ally_alive)]
    else:  # adjacentAllyOrSelf
        cands = [(self_t, True), (ally_t, ally_alive)]
    live = [t for t, alive in cands if alive]
    if live:
        return live
    # Nothing alive to aim at: Showdown still accepts the first valid location (the
    # move fails or retargets); keep exactly one so the move stays choosable.
    return [cands[0][0]]


@lru_cache(maxsize=4096)
def _move_orders(
    j: int, target_type: str | None, slot: int, ally_alive: bool, foe0: bool, foe1: bool, can_tera: bool
) -> tuple[int, ...]:
    """The slot orders of move ``j`` (each legal target, with and without the gimmick)."""
    out = []
    for t in _slot_targets(target_type, slot, ally_alive, (foe0, foe1)):
        out.append(move_action(j, t, False))
        if can_tera:
            out.append(move_action(j, t, True))
    return tuple(out)


def slot_mask(view: RequestView, slot: int, foe_alive: Sequence[bool]) -> np.ndarray:
    """Legal orders (45,) for one slot, ignoring cross-slot rules."""
    m = np.zeros(SLOT_ACTIONS, dtype=bool)
    m[list(slot_legal(view, slot, foe_alive))] = True
    return m


def slot_legal(view: RequestView, slot: int, foe_alive: Sequence[bool]) -> tuple[int, ...]:
    """The legal orders of one slot (:func:`slot_mask`'s True indices), sorted, ignoring
    cross-slot rules."""
    side = view.side
    if slot >= len(side):
        return _PASS_ONLY
    me = side[slot]
    if view.kind == "move":
        if _fainted(me) or me.get("commanding") or slot >= len(view.active) or not view.active[slot]:
            return _PASS_ONLY
        act = view.active[slot]
        other = side[1 - slot] if len(side) > 1 else None
        ally_alive = other is not None and not _fainted(other)
        can_tera = bool(view.gimmick[slot])
        foe0, foe1 = bool(foe_alive[0]), bool(foe_alive[1])
        legal: list[int] = []
        for j, mv in enumerate(act.get("moves", [])[:N_MOVES]):
            if not mv.get("disabled"):
                legal += _move_orders(j, mv.get("target"), slot, ally_alive, foe0, foe1, can_tera)
        if not (act.get("trapped") or act.get("maybeTrapped")):
            n_active = len(view.active)
            for k, ident in enumerate(view.brought[:N_SWITCHES]):
                p = view.position.get(ident)
                if p is not None and p >= n_active and not _fainted(side[p]):
                    legal.append(switch_action(k))
        # Showdown always offers something; Struggle arrives as a move
        return tuple(sorted(set(legal))) if legal else _PASS_ONLY
    if view.kind == "switch":
        flagged = slot < len(view.force_switch) and view.force_switch[slot]
        if not flagged:
            return _PASS_ONLY
        n_active = len(view.force_switch)
        reviving = me.get("reviving")
        out = [
            switch_action(k)
            for k, ident in enumerate(view.brought[:N_SWITCHES])
            if (p := view.position.get(ident)) is not None
            and (_fainted(side[p]) if reviving else p >= n_active and not _fainted(side[p]))
        ]
        if not out:
            return _PASS_ONLY
        if _forced_passes(view) > 0:
            out.append(PASS)
        return tuple(sorted(out))
    return _PASS_ONLY


_PASS_ONLY = (PASS,)


def _forced_switches(view: RequestView) -> int:
    n_active = len(view.force_switch)
    out = sum(bool(f) for f in view.force_switch)
    healthy_bench = sum(1 for m in view.side[n_active:] if not _fainted(m))
    return min(out, healthy_bench)


def _forced_passes(view: RequestView) -> int:
    return sum(bool(f) for f in view.force_switch) - _forced_switches(view)


def joint_mask(view: RequestView, foe_alive: Sequence[bool] = (True, True)) -> np.ndarray:
    """Legal joint orders (2025,) for a move or switch request: the two slots' legal
    orders, less the pairs no request allows and, in a switch request, those that switch
    other than the forced number. A function of the slots' legal orders and that number,
    so each distinct combination is built once (a copy each call: callers own it)."""
    l0 = slot_legal(view, 0, foe_alive)
    l1 = slot_legal(view, 1, foe_alive)
    forced = -1
    if view.kind == "switch" and not any(view.side[i].get("reviving") for i in range(min(2, len(view.side)))):
        forced = _forced_switches(view)
    key = (l0, l1, forced)
    j = _JOINT_MASKS.get(key)
    if j is None:
        if len(_JOINT_MASKS) >= _JOINT_MASKS_MAX:
            _JOINT_MASKS.clear()
        j = _JOINT_MASKS[key] = _build_joint_mask(l0, l1, forced)
    if j is _NO_JOINT:
        raise IllegalRequestError(f"no legal joint order for request kind {view.kind}: {l0} {l1}")
    return j.copy()


def _build_joint_mask(l0: tuple[int, ...], l1: tuple[int, ...], forced: int) -> np.ndarray:
    m0 = np.zeros(SLOT_ACTIONS, dtype=bool)
    m0[list(l0)] = True
    m1 = np.zeros(SLOT_ACTIONS, dtype=bool)
    m1[list(l1)] = True
    j = m0[:, None] & m1[None, :]
    j &= _JOINT_ALLOWED
    if forced >= 0:
        j &= _SWITCHES_ARE[forced]
    if not j.any():
        return _NO_JOINT
    return j.reshape(-1)


# (slot 0's legal orders, slot 1's, the forced switches or -1) -> joint mask. In a live
# reg_c run's first 3 minutes 92 % of 82,000 turns found theirs (2,198 entries): a hit
# ~7.8 us a call, a miss ~11.9, the mask built each time before ~11.8 (recorded turns).
_JOINT_MASKS: dict[tuple[tuple[int, ...], tuple[int, ...], int], np.ndarray] = {}
_JOINT_MASKS_MAX = 4096  # ~8 MB at most
_NO_JOINT = np.zeros(0, dtype=bool)


_PREVIEW_MASKS: dict[int, np.ndarray] = {}  # team size -> legal previews (preview_mask)


def preview_mask(view: RequestView) -> np.ndarray:
    """Legal team previews (90,): those that bring only Pokemon the team has. A function
    of the team's size, so built once per size (a copy each call: callers own it)."""
    n = len(view.side)
    m = _PREVIEW_MASKS.get(n)
    if m is None:
        m = _PREVIEW_MASKS[n] = np.array([max(decode_preview(i)) < n for i in range(PREVIEW_ACTIONS)], dtype=bool)
    return m.copy()


class IllegalRequestError(RuntimeError):
    pass


# ---------------------------------------------------------------- messages
def slot_choice(view: RequestView, a: int, slot: int) -> str:
    """Showdown's words for order ``a`` of our active ``slot`` (0 or 1)."""
    kind, i, t, tera = _SLOT_DECODED[a]
    if kind == "move":
        s = f"move {i + 1}"
        if t != NO_TARGET:
            s += f" {t - 2}"
        if tera:
            word = view.gimmick[slot] if slot < len(view.gimmick) else ""
            if not word:
                raise IllegalRequestError(
                    f"order {slot_to_text(a)} of slot {slot}: the request offers no terastallization or mega evolution"
                )
            s += " " + word
        return s
    if kind == "switch":
        return f"switch {view.position[view.brought[i]] + 1}"
    return "pass"


def joint_message(view: RequestView, j: int) -> str:
    a0, a1 = split_joint(j)
    return f"/choose {slot_choice(view, a0, 0)}, {slot_choice(view, a1, 1)}"


def slot_to_text(a: int) -> str:
    """Human-readable name of a slot order (logs, debugging)."""
    kind, i, t, tera = _SLOT_DECODED[a]
    if kind == "move":
        return f"move{i + 1}@{t - 2:+d}" + ("+tera" if tera else "")
    if kind == "switch":
        return f"switch->brought{i}"
    return "pass"
