"""The label of a rebuilt decision: what the log shows the side chose, as the codec's
action index (league/bc/replays.py).

Labels (a decision is reconstructed only when both slots are; nothing is guessed)
- ``|move|`` of the slot's Pokemon without a ``[from]`` tag (the chosen move; a
  ``[from]`` move was called by another: Dancer, Instruct, Sleep Talk, Magic Bounce, ...;
  a move right after ``-singleturn ... move: Instruct`` was instructed): move index in
  its sheet, b = 1 when it terastallized (``|-terastallize|``) or mega-evolved
  (``|-mega|``) this turn; ``[from] lockedmove``, recharge and
  Struggle are the slot's only order;
- target: the codec's index of the logged target when the move takes one. The logged
  target is where the move went, which is the chosen one except when Showdown moved it:
  Follow Me / Rage Powder / Spotlight on the logged target this turn, Lightning Rod /
  Storm Drain (``-activate`` right after), a chosen foe that fainted earlier in the turn
  or left the field (the other foe position is then a candidate), a move made spread
  (``[spread]`` on a single-target move, Expanding Force in Psychic Terrain, Tera
  Starstorm: Showdown logs a random target), Dragon Darts, a ``|cant|`` naming the move,
  no target shown; ``[notarget]`` naming a fainted foe (no foe was left: any foe that was
  there is a candidate) or a fainted ally (chosen). A charge move's target (hidden on the
  charge turn) is read from its attack (``[from] lockedmove``, same turn with Power Herb or
  the next). Then the target is reconstructed only when the rebuilt mask leaves one
  candidate;
- ``|switch|`` before the turn's first move: a switch order to that brought Pokemon;
- empty slot, Commander: pass (the mask's only order);
- no shown choice: ``|cant|`` without a move (sleep, paralysis, flinch, freeze, Truant,
  ...), fainted before acting, hurt itself in confusion, Encore changed the move, the
  battle ended first, a move not on its sheet (Transform, ...): unreconstructable
  unless the rebuilt mask has a single order for the slot;
- team preview: the two leads and the two other Pokemon the log shows; with fewer than
  four shown, unreconstructable;
- a reconstructed action outside its rebuilt mask is counted as ``illegal`` and skipped.
Every skipped decision is counted by reason; a trajectory is the side's reconstructed
decisions in order (skipped ones leave gaps). Illusion (a disguise is logged as another
Pokemon) is not supported: such a replay is an error, as is a malformed one (naming the
file and the log line) or one without open team sheets.
"""

from __future__ import annotations

import numpy as np
from poke_env.battle import DoubleBattle

from league.battle.actions import (
    CHOOSABLE_TARGETS,
    NO_TARGET,
    PASS,
    RequestView,
    joint_action,
    move_action,
    preview_action,
    slot_mask,
    switch_action,
)
from league.battle.context import Decision, foe_alive
from league.bc.replay_requests import _Side
from league.bc.replay_scan import _Slot


# ---------------------------------------------------------------- labels
class _Skip(Exception):
    """This decision cannot be reconstructed (the message is the counted reason)."""


def _target_index(user_role: str, position: str) -> int:
    """Codec target of a logged position, seen from a user of ``user_role``."""
    if position[:2] != user_role:
        return 3 if position[2] == "a" else 4
    return 1 if position[2] == "a" else 0


def _slot_label(
    side: _Side, view: RequestView, x: int, slot: _Slot, foes: tuple[bool, bool], brought: list[str]
) -> int:
    legal = slot_mask(view, x, foes)
    if slot.kind == "pass":
        return PASS
    if slot.kind == "switch":
        ident = side.ident(slot.switch_to)
        if ident not in brought:
            raise _Skip("switched to a Pokemon not brought")
        return switch_action(brought.index(ident))
    if slot.kind == "unknown":
        if legal.sum() == 1:
            return int(np.flatnonzero(legal)[0])
        raise _Skip(slot.why or "no action shown in the log")
    moves = view.active[x].get("moves", []) if x < len(view.active) else []
    ids = [m.get("id") for m in moves]
    if slot.move not in ids:
        raise _Skip("a move not on its team sheet (Transform, ...)")
    j = ids.index(slot.move)
    move = moves[j]
    if "target" not in move or move["target"] not in CHOOSABLE_TARGETS:
        return move_action(j, NO_TARGET, slot.tera)
    candidates = [t for t in range(5) if legal[move_action(j, t, slot.tera)]]
    if not slot.note:
        t = _target_index(side.role, slot.target)
    elif slot.target and slot.target.endswith("?"):  # any foe that was there
        t = _unique([c for c in candidates if c >= 3], slot.note)
    elif slot.alt and slot.note.startswith("the other foe"):
        both = {_target_index(side.role, slot.target), _target_index(side.role, slot.alt)}
        t = _unique([c for c in candidates if c in both], slot.note)
    elif slot.alt:  # drawn by Lightning Rod: the chosen target was any other
        t = _unique([c for c in candidates if c != _target_index(side.role, slot.alt)], slot.note)
    else:
        t = _unique(candidates, slot.note)
    return move_action(j, t, slot.tera)


def _unique(candidates: list[int], note: str) -> int:
    if len(candidates) != 1:
        raise _Skip(f"target not shown: {note}")
    return candidates[0]


def _turn_label(side: _Side, d: Decision, battle: DoubleBattle, slots: list[_Slot], brought: list[str]) -> int:
    foes = foe_alive(battle)
    a0, a1 = (_slot_label(side, d.view, x, slots[x], foes, brought) for x in range(2))
    return joint_action(a0, a1)


def _preview_label(side: _Side) -> int:
    if side.short:
        raise _Skip("team preview: not all four brought Pokemon shown")
    leads = tuple(side.team_position(n) for n in side.revealed[:2])
    backs = tuple(side.team_position(n) for n in side.revealed[2:4])
    return preview_action(leads, backs)
