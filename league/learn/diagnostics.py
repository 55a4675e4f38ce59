"""Learner diagnostics: figures that say why learning stalls. Pure functions on the
tensors ``rnad_loss`` already holds, run under ``torch.no_grad``; no device sync.

- :func:`explained_variance`: how much of the v-trace targets' spread the value head
  tracks (1: all of it; 0: no better than their mean; < 0: worse).
- :func:`decision_entropies`: the policy's entropy split by decision: team preview vs
  turns, and for turns each slot's own order, the joint policy marginalised onto it
  (league/battle/actions.py: ``joint = a0 * 45 + a1``): entropy over order kinds (move,
  tera move, switch, pass), over the move given a move, over the target given the
  move, and the probability of a tera and of a switch; given the request's move ids
  (:func:`move_classes`), the probability of Protect (and its kin) and of another
  status move.

A figure averages over the steps (or slots) where it is a choice: a slot that can
only pass has no kind to choose, a move with one legal target no target. A figure
with nothing to average over in a batch is NaN (``SPARSE``: the learner leaves it out
of that update's metrics rather than report a made-up 0).
"""

from __future__ import annotations

from functools import cache

import torch

from league.battle.actions import JOINT_ACTIONS, N_MOVES, N_TARGETS, SLOT_ACTIONS, decode_slot

# A request move's class for the masses: 0 a damaging move (or none), 1 Protect or a
# move of its kind (the user is shielded this turn), 2 any other status move.
PROTECT_MOVES = frozenset(
    {
        "protect", "detect", "spikyshield", "banefulbunker", "silktrap", "burningbulwark",
        "kingsshield", "obstruct", "maxguard", "wideguard", "quickguard", "craftyshield", "matblock",
    }
)  # fmt: skip
DAMAGING, PROTECT, STATUS = 0, 1, 2


@cache
def move_classes(data: str) -> torch.Tensor:
    """[moves vocabulary] int64: each move id's class (DAMAGING, PROTECT, STATUS) in the
    game data ``data`` ("sv", "champions"); ids 0 (none) and 1 (unknown) are DAMAGING."""
    from league.battle.dex import mechanics_named
    from league.battle.moves import move_info
    from league.battle.obs import _VOCAB

    mech = mechanics_named(data)
    out = torch.zeros(len(_VOCAB["moves"]), dtype=torch.long)
    for i, mid in enumerate(_VOCAB["moves"]):
        if i < 2 or not mid:
            continue
        out[i] = PROTECT if mid in PROTECT_MOVES else STATUS if move_info(mid, mech).category == 2 else DAMAGING
    return out


ORDER_KINDS = ("move", "tera", "switch", "pass")  # a slot order's kind; "tera": a move with terastallization
DECISION_FIGURES = (
    "entropy/preview",
    "entropy/turn",
    "entropy/kind",
    "entropy/move",
    "entropy/target",
    "policy/tera_mass",
    "policy/switch_mass",
    "policy/protect_mass",
    "policy/status_mass",
)
SPARSE = frozenset(DECISION_FIGURES)  # NaN when the batch has nothing to measure them on


def explained_variance(v: torch.Tensor, v_target: torch.Tensor, valid: torch.Tensor) -> torch.Tensor:
    """1 - Var(v_target - v) / Var(v_target) over the valid steps ([T, B] each).

    Convention: 0 when the targets do not vary (Var(v_target) = 0: nothing to explain,
    and a value head that matches a constant scores no better than its mean)."""
    assert v.shape == v_target.shape == valid.shape, (v.shape, v_target.shape, valid.shape)
    w = valid.to(v_target.dtype)
    n = w.sum().clamp(min=1.0)

    def var(x: torch.Tensor) -> torch.Tensor:
        mean = (x * w).sum() / n
        return (((x - mean) * w) ** 2).sum() / n

    var_t = var(v_target)
    var_r = var(v_target - v)
    ev = 1.0 - var_r / var_t.clamp(min=torch.finfo(var_t.dtype).tiny)
    return torch.where(var_t > 0, ev, torch.zeros_like(ev))


@cache
def _slot_maps(device: torch.device) -> dict[str, torch.Tensor]:
    """One-hot maps from the 45 slot orders, built once per device from actions.py:
    ``kind`` [45, 4] (ORDER_KINDS), ``move`` [45, 4] (a move order's move, any target
    and tera), ``move_target`` [45, 20] (its move * 5 + target); ``tera`` / ``switch``
    [2025]: joint actions where either slot teras / switches."""
    kind = torch.zeros(SLOT_ACTIONS, len(ORDER_KINDS))
    move = torch.zeros(SLOT_ACTIONS, N_MOVES)
    move_target = torch.zeros(SLOT_ACTIONS, N_MOVES * N_TARGETS)
    for a in range(SLOT_ACTIONS):
        k, m, t, tera = decode_slot(a)
        kind[a, ORDER_KINDS.index("tera" if tera else k)] = 1.0
        if k == "move":
            move[a, m] = 1.0
            move_target[a, m * N_TARGETS + t] = 1.0
    slot_tera, slot_switch = kind[:, ORDER_KINDS.index("tera")] > 0, kind[:, ORDER_KINDS.index("switch")] > 0
    either = lambda s: (s[:, None] | s[None, :]).reshape(JOINT_ACTIONS)  # noqa: E731  joint a0 * 45 + a1
    maps = {
        "kind": kind,
        "move": move,
        "move_target": move_target,
        "tera": either(slot_tera),
        "switch": either(slot_switch),
    }
    return {k: v.to(device) for k, v in maps.items()}


def _entropy(p: torch.Tensor) -> torch.Tensor:
    """-sum p log p over the last dimension, 0 log 0 = 0 (nats)."""
    return -torch.special.xlogy(p, p).sum(-1)


def _conditional(p: torch.Tensor) -> torch.Tensor:
    """p normalised over its last dimension (all 0 where it sums to 0)."""
    return p / p.sum(-1, keepdim=True).clamp(min=torch.finfo(p.dtype).tiny)


def _mean(x: torch.Tensor, where: torch.Tensor) -> torch.Tensor:
    """Mean of x over ``where``; NaN when ``where`` is empty (see SPARSE)."""
    w = where.to(x.dtype)
    return torch.where(where, x, torch.zeros_like(x)).sum() / w.sum()


def _choice(legal: torch.Tensor, has: torch.Tensor) -> torch.Tensor:
    """[N] bool: steps where some legal joint action (``legal`` [N, 2025], 0/1) has the
    thing (``has`` [2025], 0/1) and some has not."""
    return ((legal @ has) > 0) & ((legal @ (1 - has)) > 0)


def decision_entropies(
    pi: torch.Tensor,
    log_pi: torch.Tensor | None,
    mask: torch.Tensor,
    is_preview: torch.Tensor,
    move_class: torch.Tensor | None = None,
    h: torch.Tensor | None = None,
) -> dict[str, torch.Tensor]:
    """The policy's entropies and masses by decision (nats), on N steps ([N, 2025] pi, its
    log on legal actions (0 elsewhere) and the legal mask, [N] is_preview); every row
    counts (pass only the valid steps).

    Turn steps: each slot's marginal p(o) = sum_o' pi(o, o') (slot 0) or sum_o pi(o, o')
    (slot 1) over its 45 orders, then
      entropy/kind    H(kind) of p summed by ORDER_KINDS, on slots with >= 2 legal kinds
      entropy/move    H(move | a move) over the 4 moves (targets and tera summed), on
                      slots with >= 2 legal moves
      entropy/target  sum_m p(m | M) H(target | m), M the slot's legal moves with >= 2
                      legal targets, on slots where M is not empty
      policy/tera_mass, policy/switch_mass: pi's mass on joint actions where a slot
                      teras (switches), on steps where some legal joint action does and
                      some does not
      policy/protect_mass, policy/status_mass: with ``move_class`` [N, 2, 4] (each
                      slot's request moves' classes, :func:`move_classes`), the slot's
                      probability of a PROTECT (a STATUS) move, on slots where some
                      legal order is one and some is not (NaN without ``move_class``)
    each averaged over those slots (steps). entropy/preview and entropy/turn: H(pi) on
    the preview (turn) steps. ``h`` [N]: those entropies when the caller has them
    (``log_pi`` may then be None)."""
    N, A = pi.shape
    assert A == JOINT_ACTIONS and mask.shape == (N, A) and is_preview.shape == (N,), (pi.shape, mask.shape)
    maps = _slot_maps(pi.device)
    turn = ~is_preview
    if h is None:
        assert log_pi is not None and log_pi.shape == (N, A), "decision_entropies needs log_pi or h"
        h = -(pi * log_pi).sum(-1)
    legal = mask.to(pi.dtype)  # (sums and products of 0/1 floats: much faster than bool any on CPU)

    def slots(x: torch.Tensor) -> torch.Tensor:  # [N, 2025] -> [N, 2, 45]: summed onto slot 0's, slot 1's order
        joint = x.view(N, SLOT_ACTIONS, SLOT_ACTIONS)
        return torch.stack([joint.sum(2), joint.sum(1)], 1)

    p_slot = slots(pi)
    legal_slot = (slots(legal) > 0).to(pi.dtype)  # [N, 2, 45]
    slot_turn = turn[:, None].expand(N, 2)

    kind_legal = (legal_slot @ maps["kind"]) > 0  # [N, 2, 4]
    h_kind = _entropy(p_slot @ maps["kind"])
    p_move = p_slot @ maps["move"]  # [N, 2, 4]
    move_legal = (legal_slot @ maps["move"]) > 0
    h_move = _entropy(_conditional(p_move))
    p_mt = (p_slot @ maps["move_target"]).view(N, 2, N_MOVES, N_TARGETS)
    multi = ((legal_slot @ maps["move_target"]).view(N, 2, N_MOVES, N_TARGETS) > 0).sum(-1) >= 2  # [N, 2, 4]
    h_target_m = _entropy(_conditional(p_mt))  # [N, 2, 4]: H(target | m)
    h_target = (_conditional(p_move * multi) * h_target_m).sum(-1)  # sum_m p(m | M) H(target | m)

    tera, switch = maps["tera"].to(pi.dtype), maps["switch"].to(pi.dtype)
    classes = {}
    for name, c in (("policy/protect_mass", PROTECT), ("policy/status_mass", STATUS)):
        if move_class is None:
            classes[name] = torch.full((), float("nan"), dtype=pi.dtype, device=pi.device)
            continue
        of_c = (move_class == c).to(pi.dtype)  # [N, 2, 4]
        n_c = ((legal_slot @ maps["move"]) * of_c).sum(-1)  # legal orders of that class
        choice = slot_turn & (n_c > 0) & (n_c < legal_slot.sum(-1))
        classes[name] = _mean((p_move * of_c).sum(-1), choice)
    return {
        **classes,
        "entropy/preview": _mean(h, is_preview),
        "entropy/turn": _mean(h, turn),
        "entropy/kind": _mean(h_kind, slot_turn & (kind_legal.sum(-1) >= 2)),
        "entropy/move": _mean(h_move, slot_turn & (move_legal.sum(-1) >= 2)),
        "entropy/target": _mean(h_target, slot_turn & multi.any(-1)),
        "policy/tera_mass": _mean(pi @ tera, turn & _choice(legal, tera)),
        "policy/switch_mass": _mean(pi @ switch, turn & _choice(legal, switch)),
    }
