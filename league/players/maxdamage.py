"""Max-damage baseline that understands doubles targets.

Each slot scores every legal order by the expected damage it deals, from the same
analysis the network's observation carries (league/battle/analysis.py, with
league/battle/damage.py's formula): the expected share of each hit foe's HP removed
(accuracy and hit count included, capped at the HP it has left), minus the same for our
own ally when the move hits it. Switches score -1 (below any move), status moves 0.
Exact ties (status moves, immune targets) go to the move whose id sorts first, then to
the lower target index, so the choice depends on the moves, not on their order in a
team file. The joint order maximises the sum of both slots' scores over the legal joint
mask, so cross-slot rules (one tera, distinct switch-ins) hold. It never terastallizes
unless nothing else is legal. In Champions formats it mega-evolves whenever it can: an
order with Mega Evolution scores the mega forme's damage (the analysis computes it with
the forme's stats, types, ability and speed) plus ``MEGA_BONUS``, since the forme
stays for the rest of the battle. Team preview brings the four Pokemon with the best
offence+speed, the best two as leads.
"""

from __future__ import annotations

import numpy as np

from league.battle.actions import MOVE_ACTIONS, PASS, SLOT_ACTIONS, SWITCH_OFFSET, preview_action
from league.battle.analysis import ACT_MOVE_F, ACT_TARGET_F, EXP_ALLY, EXP_FOES, analyse_moves
from league.battle.obs import VOCAB_SIZES, move_vocab_id
from league.players.base import LeaguePlayer

SWITCH_SCORE = -1.0
TERA_PENALTY = 1e-3
MEGA_BONUS = 0.1  # share of a foe's HP: the mega forme's stats last the battle, not this turn only
TIE_BREAK = 1e-6  # x (1 + vocab rank of the move): exact ties go to the move id that sorts first


def maxdamage_preview(battle, decision) -> int:
    """Bring the four with the best offence + speed, the best two as leads."""
    side = decision.view.side
    mons = [battle.team.get(m["ident"]) for m in side]

    def power(i: int) -> float:
        m = mons[i]
        if m is None:
            return 0.0
        b = m.base_stats
        return max(b["atk"], b["spa"]) + 0.5 * b["spe"]

    order = sorted(range(len(side)), key=power, reverse=True)
    if len(order) < 4:
        legal = np.flatnonzero(decision.mask)
        return int(legal[0])
    return preview_action((order[0], order[1]), (order[2], order[3]))


def move_analysis(battle, view):
    """The per-order analysis of a move request (league/battle/analysis.py): move ids
    [2, 4], per-move rows [2, 4, ACT_MOVE_F], per-target rows [2, 4, 5, 2, ACT_TARGET_F],
    and its TurnAnalysis (for more blocks from the same fighters)."""
    ids = np.zeros((2, 4), np.float32)
    am = np.zeros((2, 4, ACT_MOVE_F), np.float32)
    at = np.zeros((2, 4, 5, 2, ACT_TARGET_F), np.float32)
    ta = analyse_moves(battle, view, ids, am, at, move_vocab_id)
    return ids, am, at, ta


def slot_scores(battle, decision) -> tuple[np.ndarray, np.ndarray]:
    """Both slots' scores over their 45 orders (index 10 m + 2 t + b, switches, pass)."""
    scores = np.zeros((2, SLOT_ACTIONS), dtype=np.float64)
    scores[:, SWITCH_OFFSET:PASS] = SWITCH_SCORE
    view = decision.view
    if view.kind != "move":
        return scores[0], scores[1]
    ids, _, at, _ = move_analysis(battle, view)
    value = at[..., EXP_FOES].astype(np.float64) - at[..., EXP_ALLY]  # [2, 4, 5, 2]
    for s in range(2):
        if s < len(view.gimmick) and view.gimmick[s] == "mega":
            value[s, ..., 1] += MEGA_BONUS  # b = 1: the mega forme's own damage, from the analysis
        else:
            value[s, ..., 1] = value[s, ..., 0] - TERA_PENALTY  # tera never pays here (its STAB boost is not counted)
    value -= TIE_BREAK * (1.0 + ids[:, :, None, None] / VOCAB_SIZES["moves"])
    scores[:, :MOVE_ACTIONS] = value.reshape(2, MOVE_ACTIONS)
    return scores[0], scores[1]


def maxdamage_turn(battle, decision) -> int:
    """The legal joint order maximising the sum of both slots' damage scores."""
    s0, s1 = slot_scores(battle, decision)
    total = (s0[:, None] + s1[None, :]).reshape(-1)
    total[~decision.mask] = -np.inf
    return int(np.argmax(total))


class MaxDamagePlayer(LeaguePlayer):
    encode_observations = False

    def choose_preview(self, battle, decision) -> int:
        return maxdamage_preview(battle, decision)

    def choose_turn(self, battle, decision) -> int:
        return maxdamage_turn(battle, decision)
