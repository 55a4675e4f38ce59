"""A scripted doubles player a step above ``maxdamage`` (issue 27: a stronger fixed
opponent, and a reference for how far a few rules get against ``maxdamage``).

It reads the same per-order analysis as ``maxdamage`` and the network's observation
(league/battle/analysis.py) and adds what a beginner knows about doubles:

- **knock-outs count**: an order's score is the expected share of the foes' HP it
  removes plus ``KO_BONUS`` per expected knock-out (both damage rolls weighed alike),
  more when it acts before the foe (``FIRST_SHARE``): a foe knocked out first does not
  act;
- **focus without overkill**: two single-target attacks on the same foe score their
  summed damage capped at the HP it has left, and a knock-out only once (or once when
  neither alone would knock it out but both together are expected to);
- **Protect when it pays**: a slot a foe is expected to knock out before it moves (the
  analysis's threat block: the foe's revealed moves or, while unknown, a typical STAB
  attack) scores Protect by that threat, unless it protected last turn;
- **Fake Out** on a slot's first turn scores ``FAKE_OUT_BONUS`` over its damage
  against a foe it can hit (the flinch is worth a foe's turn);
- **tera when it pays**: an order with tera scores its own damage (the analysis computes
  the tera STAB) less ``TERA_COST``, so the once-a-battle tera goes to an attack it
  lifts by that much or turns into a knock-out. In Champions formats it mega-evolves
  whenever it can, as ``maxdamage`` does;
- it hits its ally only when the gain pays for the ally's loss (``ALLY_WEIGHT``), and
  never switches unless forced;
- **team preview by matchup**: each of its six scores ``maxdamage``'s offence + speed
  (in hundreds of base stat points) plus ``MATCHUP_WEIGHT`` x (how well its damaging
  moves' types hit the foe's six, less how well the foes' own types hit it: mean log2
  effectiveness); the best four come, the best two lead.

Deterministic: exact ties go as ``maxdamage``'s do (the move id that sorts first, then
the lower target index, then the lower joint index).
"""

from __future__ import annotations

import math

import numpy as np

from league.battle.actions import MOVE_ACTIONS, PASS, SLOT_ACTIONS, SWITCH_OFFSET, move_action, preview_action
from league.battle.analysis import AM, AT, THREAT_F, _attack_types, _types_of, analyse_threats
from league.battle.dex import effectiveness, mechanics_of
from league.battle.obs import VOCAB_SIZES
from league.players.base import LeaguePlayer
from league.players.maxdamage import MEGA_BONUS, SWITCH_SCORE, TIE_BREAK, move_analysis

KO_BONUS = 0.5  # a knock-out's worth beyond the HP it removes, in shares of a foe's HP
FIRST_SHARE = 0.5  # the part of KO_BONUS that needs the order to act before the foe
ALLY_WEIGHT = 1.5  # the ally's HP lost weighs this much more than a foe's
TERA_COST = 0.25  # tera is once a battle: spend it on an order it lifts this much
FAKE_OUT_BONUS = 0.3
MATCHUP_WEIGHT = 0.5  # team preview: x mean log2 effectiveness, against offence + speed in hundreds
PROTECT_WEIGHT = 1.0  # x (the chance a faster foe knocks the slot out) x (1 + the most HP a foe is expected to take)
_FOE_T = (3, 4)  # codec target index of foe a, foe b
# per foe: the slot order index (the codec's) of each (move, plain / tera) aimed at it, [4, 2]
_ORDERS_AT = [np.array([[move_action(m, t, bool(b)) for b in range(2)] for m in range(4)]) for t in _FOE_T]
# the moves that shield their user alone (Wide Guard, Quick Guard and kin shield a side from some moves only)
PROTECTS = frozenset(
    {"protect", "detect", "spikyshield", "kingsshield", "banefulbunker", "silktrap", "burningbulwark", "obstruct"}
)


def _danger(threat: np.ndarray, s: int) -> float:
    """How likely a foe knocks our slot ``s`` out before it moves: per present foe, the
    share of its two damage rolls that knock out, times whether it moves first; the worst."""
    out = 0.0
    for f in range(2):
        if threat[s, f, 0]:
            out = max(out, 0.5 * float(threat[s, f, 2] + threat[s, f, 3]) * float(threat[s, f, 4]))
    return out


def _slot_tables(battle, decision) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per slot, over its 45 orders: the score alone, the foe a single-target order aims
    at (-1: none), its expected damage to that foe (a share of its max HP) and its
    expected knock-outs. Scores of orders the mask forbids are whatever; the joint mask
    removes them."""
    score = np.zeros((2, SLOT_ACTIONS))
    score[:, SWITCH_OFFSET:PASS] = SWITCH_SCORE
    foe = np.full((2, SLOT_ACTIONS), -1, dtype=np.int64)
    dmg = np.zeros((2, SLOT_ACTIONS))
    ko = np.zeros((2, SLOT_ACTIONS))
    view = decision.view
    if view.kind != "move":
        return score, foe, dmg, ko
    ids, am, at, ta = move_analysis(battle, view)
    threat = np.zeros((2, 2, THREAT_F), np.float32)
    if ta is not None:
        analyse_threats(battle, threat, ta)
    at64 = at.astype(np.float64)
    exp = at64[..., AT["exp_foes"]]
    pko = (at64[..., AT["ko_lo"]] + at64[..., AT["ko_hi"]]) * at64[..., AT["accuracy"]]  # expected KOs
    first = at64[..., AT["first"]]
    value = (
        exp
        + KO_BONUS * pko * ((1.0 - FIRST_SHARE) + FIRST_SHARE * first)
        - ALLY_WEIGHT * at64[..., AT["exp_ally"]]
        - KO_BONUS * at64[..., AT["ko_ally"]]
    )
    own = battle.active_pokemon
    for s in range(2):
        if s >= len(view.active) or not view.active[s]:
            continue
        moves = view.active[s].get("moves", [])[:4]
        mon = own[s] if s < len(own) else None
        for j, rm in enumerate(moves):
            if am[s, j, AM["fake_out_usable"]] > 0:
                for t in _FOE_T:
                    value[s, j, t, :] += FAKE_OUT_BONUS * (at[s, j, t, :, AT["immune"]] == 0)
            if rm.get("id", "") in PROTECTS and mon is not None and mon.protect_counter == 0:
                worth = PROTECT_WEIGHT * _danger(threat, s) * (1.0 + float(threat[s, :, 1].max()))
                value[s, j] = np.where(at[s, j, :, :, AT["aims"]] > 0, worth, 0.0)
        if s < len(view.gimmick) and view.gimmick[s] == "mega":
            value[s, ..., 1] += MEGA_BONUS
        else:
            value[s, ..., 1] -= TERA_COST
    value -= TIE_BREAK * (1.0 + ids[:, :, None, None] / VOCAB_SIZES["moves"])
    score[:, :MOVE_ACTIONS] = value.reshape(2, MOVE_ACTIONS)
    for f, t in enumerate(_FOE_T):
        idx = _ORDERS_AT[f]
        foe[:, idx] = f
        dmg[:, idx] = exp[:, :, t, :]
        ko[:, idx] = pko[:, :, t, :]
    return score, foe, dmg, ko


def joint_scores(score: np.ndarray, foe: np.ndarray, dmg: np.ndarray, ko: np.ndarray, hp) -> np.ndarray:
    """[45, 45] joint scores from both slots' tables (``_slot_tables``) and the foes'
    HP shares ``hp`` (None: no foe there): the sum of the two slots' scores, where both
    aim a single-target order at the same foe less the damage past its HP and a
    knock-out both count, plus one when neither alone but both together are expected to
    knock it out."""
    total = score[0][:, None] + score[1][None, :]
    for f, left in enumerate(hp):
        if left is None:
            continue
        both = (foe[0][:, None] == f) & (foe[1][None, :] == f)
        if not both.any():
            continue
        d = dmg[0][:, None] + dmg[1][None, :]
        over = np.maximum(d - left, 0.0)  # damage past the foe's HP counts once
        k0, k1 = ko[0][:, None], ko[1][None, :]
        dup = np.minimum(k0, k1)  # a knock-out counted by both orders counts once
        joint_ko = ((k0 + k1 == 0) & (d >= left)).astype(np.float64)  # neither alone, together yes
        total -= np.where(both, over + KO_BONUS * (dup - joint_ko), 0.0)
    return total


def heuristic_turn(battle, decision) -> int:
    """The legal joint order with the best joint score (module docstring)."""
    opp = battle.opponent_active_pokemon
    hp = [
        m.current_hp_fraction if m is not None and not m.fainted else None
        for m in (opp[f] if f < len(opp) else None for f in range(2))
    ]
    score, foe, dmg, ko = _slot_tables(battle, decision)
    flat = joint_scores(score, foe, dmg, ko, hp).reshape(-1)
    flat[~decision.mask] = -np.inf
    return int(np.argmax(flat))


def _log2(e: float) -> float:
    return max(-2.0, min(2.0, math.log2(max(e, 0.25))))


def preview_scores(battle, decision) -> list[float]:
    """Each of our six (request order): offence + speed (``maxdamage``'s, in hundreds)
    plus ``MATCHUP_WEIGHT`` x (our attacks' types on the foes' types, less the foes'
    types on ours; mean log2 effectiveness over the foe's six)."""
    mech = mechanics_of(battle.format)
    foes = [_types_of(m) for m in battle.teampreview_opponent_team]
    out = []
    for entry in decision.view.side:
        mon = battle.team.get(entry["ident"])
        if mon is None:
            out.append(0.0)
            continue
        b = mon.base_stats
        power = (max(b["atk"], b["spa"]) + 0.5 * b["spe"]) / 100.0
        mine, att = _types_of(mon), _attack_types(mon, mech)
        match = 0.0
        for ft in foes:
            hit = max((effectiveness(t, ft) for t in att), default=1.0)
            hurt = max((effectiveness(t, mine) for t in ft if t >= 0), default=1.0)
            match += _log2(hit) - _log2(hurt)
        out.append(power + MATCHUP_WEIGHT * match / max(len(foes), 1))
    return out


def heuristic_preview(battle, decision) -> int:
    """The best four by ``preview_scores`` (ties: request order), the best two leading."""
    scores = preview_scores(battle, decision)
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    if len(order) < 4:
        return int(np.flatnonzero(decision.mask)[0])
    return preview_action((order[0], order[1]), (order[2], order[3]))


class HeuristicPlayer(LeaguePlayer):
    encode_observations = False

    def reads_own_tera(self, battle) -> bool:
        return True  # "tera when it pays" reads the tera STAB, which needs our tera types

    def choose_preview(self, battle, decision) -> int:
        return heuristic_preview(battle, decision)

    def choose_turn(self, battle, decision) -> int:
        return heuristic_turn(battle, decision)
