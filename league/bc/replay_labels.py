"""The label of a rebuilt decision: what the log shows the side chose, as a set of the
codec's actions (league/bc/replays.py).

A decision is two choices: at a turn, the orders of slot a and slot b (45 each); at team
preview, the leads and the backs (15 lead pairs x 6 back pairs). Each choice is read off
the log as a set of orders, and the decision's label is the set of joint actions
``outer(choice a, choice b)`` within the rebuilt mask: one action when both choices are
shown, several when one is not (BC then learns log sum over that set of pi: the joint
policy marginalised over what the log does not show, league/bc/train.py). Nothing is
guessed: a set holds every order the log leaves possible.

Choices
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
  the next). Where the target is not shown, the choice is the move with every target the
  rebuilt mask leaves among the candidates (``target_open``: a spread move needs none);
- ``|switch|`` before the turn's first move: a switch order to that brought Pokemon;
- empty slot, Commander, a slot whose rebuilt mask has one order: that order (forced: not
  a choice);
- not shown: ``|cant|`` without a move (sleep, paralysis, flinch, freeze, Truant, ...),
  fainted before acting, hurt itself in confusion, Encore changed the move, the battle
  ended first: every legal order (the decision is kept when the other choice is shown);
- shown but not rebuilt (the decision is skipped: the rebuilt request does not fit it): a
  move not on its sheet (Transform, ...), a switch to a Pokemon not brought, an order
  outside its rebuilt mask (counted as ``illegal``);
- team preview: the leads are the first two Pokemon sent in (always shown); the backs the
  two others the log shows, and while fewer than two are shown, every back pair holding
  those shown.
A decision where no choice is shown is skipped (unless its mask has one action); every skipped
decision is counted by reason, and every choice not shown by reason. A trajectory is the
side's kept decisions in order (skipped ones leave gaps). Illusion (a disguise is logged
as another Pokemon) is not supported: such a replay is an error, as is a malformed one
(naming the file and the log line).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from poke_env.battle import DoubleBattle

from league.battle.actions import (
    BACK_PAIRS_OF_4,
    CHOOSABLE_TARGETS,
    LEAD_PAIRS,
    NO_TARGET,
    PASS,
    SLOT_ACTIONS,
    TEAM_SIZE,
    RequestView,
    move_action,
    slot_mask,
    switch_action,
)
from league.battle.context import Decision, foe_alive
from league.bc.replay_requests import _Side
from league.bc.replay_scan import _Slot

ILLEGAL = "illegal under the rebuilt mask"

# What the log shows of one choice
FORCED = "forced"  # one legal order: not a choice
REBUILT = "rebuilt"  # shown and rebuilt: one order
TARGET_OPEN = "target_open"  # shown and rebuilt but for the target: the move with every candidate target
NOT_SHOWN = "not_shown"  # the log does not show it: every legal order
NOT_REBUILT = "not_rebuilt"  # shown, but the rebuilt request cannot express it (the decision is skipped)


@dataclass
class Choice:
    """One choice of a decision (a slot's order; at team preview the leads or the backs)."""

    orders: np.ndarray  # bool: the orders the log leaves possible, within the choice's legal ones
    status: str  # FORCED, REBUILT, TARGET_OPEN, NOT_SHOWN, NOT_REBUILT
    why: str = ""  # NOT_SHOWN, NOT_REBUILT: why; TARGET_OPEN: why the target is not shown

    @property
    def shown(self) -> bool:
        return self.status in (REBUILT, TARGET_OPEN, NOT_REBUILT)


@dataclass
class Label:
    """A decision's label: its two choices and the joint actions they leave (``actions``,
    bool like the mask; empty when the decision is skipped, then ``reason`` says why)."""

    choices: list[Choice]
    actions: np.ndarray
    reason: str = ""

    @property
    def action(self) -> int | None:
        """The one action when the label is exact, else None."""
        return int(np.flatnonzero(self.actions)[0]) if self.actions.sum() == 1 else None


def _decision_label(choices: list[Choice], joint: np.ndarray, mask: np.ndarray) -> Label:
    """The label of two choices whose joint orders are ``joint`` (bool, like ``mask``)."""
    none = np.zeros_like(mask)
    bad = next((c for c in choices if c.status == NOT_REBUILT), None)
    if bad is not None:
        return Label(choices, none, bad.why)
    actions = joint & mask
    if not actions.any():  # each choice legal alone, not together (tera on both, one switch target)
        return Label(choices, none, ILLEGAL)
    if actions.sum() > 1 and not any(c.status in (REBUILT, TARGET_OPEN) for c in choices):  # nothing shown
        why = next((c.why for c in choices if c.status == NOT_SHOWN), "no action shown in the log")
        return Label(choices, none, why)
    return Label(choices, actions)  # all the mask when what is shown was the only choice (a Choice lock)


def _choice(orders: np.ndarray, legal: np.ndarray, status: str, why: str = "") -> Choice:
    """A shown choice within its legal orders: one order REBUILT, several TARGET_OPEN, none illegal."""
    orders = orders & legal
    if not orders.any():
        return Choice(orders, NOT_REBUILT, ILLEGAL)
    return Choice(orders, REBUILT if orders.sum() == 1 else status, why)


# ---------------------------------------------------------------- turns
def _target_index(user_role: str, position: str) -> int:
    """Codec target of a logged position, seen from a user of ``user_role``."""
    if position[:2] != user_role:
        return 3 if position[2] == "a" else 4
    return 1 if position[2] == "a" else 0


def _one(a: int) -> np.ndarray:
    out = np.zeros(SLOT_ACTIONS, dtype=bool)
    out[a] = True
    return out


def _slot_choice(
    side: _Side, view: RequestView, x: int, slot: _Slot, foes: tuple[bool, bool], brought: list[str]
) -> Choice:
    legal = slot_mask(view, x, foes)
    if slot.kind == "unknown":
        if legal.sum() == 1:  # the mask's one order (Commander, a locked move, the one switch left)
            return Choice(legal, FORCED)
        return Choice(legal, NOT_SHOWN, slot.why or "no action shown in the log")
    c = _shown_choice(side, view, x, slot, legal, brought)
    if c.status == REBUILT and legal.sum() == 1:  # what the log shows is the one legal order: not a choice
        c.status = FORCED
    return c


def _shown_choice(side: _Side, view: RequestView, x: int, slot: _Slot, legal: np.ndarray, brought: list[str]) -> Choice:
    if slot.kind == "pass":
        return _choice(_one(PASS), legal, REBUILT)
    if slot.kind == "switch":
        ident = side.ident(slot.switch_to)
        if ident not in brought:
            return Choice(legal & False, NOT_REBUILT, "switched to a Pokemon not brought")
        return _choice(_one(switch_action(brought.index(ident))), legal, REBUILT)
    moves = view.active[x].get("moves", []) if x < len(view.active) else []
    ids = [m.get("id") for m in moves]
    if slot.move not in ids:
        return Choice(legal & False, NOT_REBUILT, "a move not on its team sheet (Transform, ...)")
    j = ids.index(slot.move)
    move = moves[j]
    if "target" not in move or move["target"] not in CHOOSABLE_TARGETS:
        return _choice(_one(move_action(j, NO_TARGET, slot.tera)), legal, REBUILT)
    if not slot.note and slot.target:
        targets = {_target_index(side.role, slot.target)}
    elif slot.target and slot.target.endswith("?"):  # any foe that was there
        targets = {3, 4}
    elif slot.alt and slot.target and slot.note.startswith("the other foe"):
        targets = {_target_index(side.role, slot.target), _target_index(side.role, slot.alt)}
    elif slot.alt:  # drawn by Lightning Rod: the chosen target was any other
        targets = set(range(5)) - {_target_index(side.role, slot.alt)}
    else:
        targets = set(range(5))
    orders = np.zeros(SLOT_ACTIONS, dtype=bool)
    orders[[move_action(j, t, slot.tera) for t in targets]] = True
    return _choice(orders, legal, TARGET_OPEN, slot.note)


def turn_label(side: _Side, d: Decision, battle: DoubleBattle, slots: list[_Slot], brought: list[str]) -> Label:
    """The label of a move or forced-switch decision (``d``: its rebuilt view and mask)."""
    foes = foe_alive(battle)
    choices = [_slot_choice(side, d.view, x, slots[x], foes, brought) for x in range(2)]
    return _decision_label(choices, np.outer(choices[0].orders, choices[1].orders).reshape(-1), d.mask)


# ---------------------------------------------------------------- team preview
def preview_label(side: _Side, mask: np.ndarray) -> Label:
    """Team preview: the leads (the first two sent in) and the backs the log shows (every
    back pair holding them while fewer than two are shown). Preview action
    ``lead_pair * 6 + back_pair`` is a (15, 6) grid: the label is leads x backs."""
    grid = mask.reshape(len(LEAD_PAIRS), len(BACK_PAIRS_OF_4))
    if len(side.revealed) < 2:
        return Label([], np.zeros_like(mask), "team preview: the leads are not shown")
    a, b = sorted(side.team_position(n) for n in side.revealed[:2])
    lead = (a, b)
    p = LEAD_PAIRS.index(lead)
    leads_legal = np.asarray(grid.any(1))
    leads_one = np.zeros(len(LEAD_PAIRS), dtype=bool)
    leads_one[p] = True
    leads = Choice(leads_one, FORCED) if leads_legal.sum() == 1 else _choice(leads_one, leads_legal, REBUILT)
    rest = [i for i in range(TEAM_SIZE) if i not in lead]
    shown = {rest.index(side.team_position(n)) for n in side.revealed[2:4]}
    orders = np.array([shown <= set(q) for q in BACK_PAIRS_OF_4])
    backs_legal = grid[p]
    if backs_legal.sum() <= 1:
        backs = Choice(backs_legal, FORCED)
    elif len(shown) == 2:
        backs = _choice(orders, backs_legal, REBUILT)
    else:
        backs = Choice(orders & backs_legal, NOT_SHOWN, "team preview: not all four brought Pokemon shown")
    return _decision_label([leads, backs], np.outer(leads.orders, backs.orders).reshape(-1), mask)
