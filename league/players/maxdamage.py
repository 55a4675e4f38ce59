"""Max-damage baseline that understands doubles targets.

Each slot scores every legal order by an expected-damage estimate
(base power x hits x STAB x type effectiveness x attack/defence ratio with boosts
x accuracy, x0.75 for spread moves hitting two, ability immunities when known or
certain), damage to our own ally counted against the move; switches and status moves
score below any damaging move. The joint order maximises the sum of both slots' scores
over the legal joint mask, so cross-slot rules (one tera, distinct switch-ins) hold.
It never terastallizes unless nothing else is legal. Team preview brings the four
Pokemon with the best offence+speed, the best two as leads.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from poke_env.battle import Move, MoveCategory, PokemonType

from league.battle.actions import (
    MOVE_ACTIONS,
    NO_TARGET,
    PASS,
    SLOT_ACTIONS,
    SWITCH_OFFSET,
    decode_slot,
    preview_action,
)
from league.players.base import LeaguePlayer

# (ability, type it nullifies)
_IMMUNITIES = {
    "levitate": PokemonType.GROUND,
    "eartheater": PokemonType.GROUND,
    "flashfire": PokemonType.FIRE,
    "wellbakedbody": PokemonType.FIRE,
    "waterabsorb": PokemonType.WATER,
    "stormdrain": PokemonType.WATER,
    "dryskin": PokemonType.WATER,
    "voltabsorb": PokemonType.ELECTRIC,
    "lightningrod": PokemonType.ELECTRIC,
    "motordrive": PokemonType.ELECTRIC,
    "sapsipper": PokemonType.GRASS,
}
_SPREAD = {"allAdjacentFoes", "allAdjacent"}
_BOOST = {-6: 2 / 8, -5: 2 / 7, -4: 2 / 6, -3: 2 / 5, -2: 2 / 4, -1: 2 / 3, 0: 1.0, 1: 1.5, 2: 2.0, 3: 2.5, 4: 3.0, 5: 3.5, 6: 4.0}
SWITCH_SCORE = -1.0
TERA_PENALTY = 1e-3


@lru_cache(maxsize=4096)
def _move(move_id: str) -> Move:
    return Move(move_id, gen=9)


def _est_stat(mon, stat: str) -> float:
    """Our own Pokemon: real stat from the request; theirs: level-50 estimate from base."""
    s = mon.stats.get(stat) if mon.stats else None
    if not s:
        s = 2 * mon.base_stats[stat] + 52  # lvl 50, 31 IV, ~0-84 EV
    return s * _BOOST.get(mon.boosts.get(stat, 0), 1.0)


def _immunity_factor(defender, mtype: PokemonType) -> float:
    if defender.ability:
        return 0.0 if _IMMUNITIES.get(defender.ability) == mtype else 1.0
    poss = defender.possible_abilities or []
    hits = sum(1 for a in poss if _IMMUNITIES.get(a) == mtype)
    if not poss or hits == 0:
        return 1.0
    return 0.0 if hits == len(poss) else 0.5


def expected_damage(attacker, move: Move, defender) -> float:
    if defender is None or move.category == MoveCategory.STATUS or not move.base_power:
        return 0.0
    mtype = move.type
    eff = defender.damage_multiplier(move)
    if eff == 0:
        return 0.0
    eff *= _immunity_factor(defender, mtype)
    stab = 1.5 if mtype in attacker.types or (attacker.is_terastallized and attacker.tera_type == mtype) else 1.0
    if move.category == MoveCategory.PHYSICAL:
        ratio = _est_stat(attacker, "atk") / _est_stat(defender, "def")
    else:
        ratio = _est_stat(attacker, "spa") / _est_stat(defender, "spd")
    acc = move.accuracy if isinstance(move.accuracy, float) else 1.0
    return move.base_power * move.expected_hits * stab * eff * ratio * acc


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


def _slot_scores(battle, decision, slot: int) -> np.ndarray:
    scores = np.zeros(SLOT_ACTIONS, dtype=np.float64)
    view = decision.view
    scores[SWITCH_OFFSET:PASS] = SWITCH_SCORE
    if view.kind != "move" or slot >= len(view.active):
        return scores
    actives = battle.active_pokemon
    me = actives[slot]
    if me is None:
        return scores
    ally = actives[1 - slot]
    foes = battle.opponent_active_pokemon
    req_moves = view.active[slot].get("moves", [])
    n_foes = sum(f is not None for f in foes)
    for a in range(MOVE_ACTIONS):
        _, j, t, tera = decode_slot(a)
        if j >= len(req_moves):
            continue
        rm = req_moves[j]
        mv = _move(rm["id"])
        ttype = rm.get("target")
        if t == NO_TARGET:
            if ttype in _SPREAD:
                mult = 0.75 if n_foes + (ttype == "allAdjacent" and ally is not None) > 1 else 1.0
                s = sum(expected_damage(me, mv, f) for f in foes) * mult
                if ttype == "allAdjacent" and ally is not None:
                    s -= expected_damage(me, mv, ally) * mult
            elif ttype in ("randomNormal", None):
                live = [f for f in foes if f is not None]
                s = sum(expected_damage(me, mv, f) for f in live) / max(len(live), 1)
            else:
                s = 0.0
        elif t >= 3:
            s = expected_damage(me, mv, foes[t - 3])
        else:  # aimed at our own side
            s = -expected_damage(me, mv, ally) if ally is not None else 0.0
        scores[a] = s - (TERA_PENALTY if tera else 0.0)
    return scores


def maxdamage_turn(battle, decision) -> int:
    """The legal joint order maximising the sum of both slots' damage scores."""
    s0 = _slot_scores(battle, decision, 0)
    s1 = _slot_scores(battle, decision, 1)
    total = (s0[:, None] + s1[None, :]).reshape(-1)
    total[~decision.mask] = -np.inf
    return int(np.argmax(total))


class MaxDamagePlayer(LeaguePlayer):
    encode_observations = False

    def choose_preview(self, battle, decision) -> int:
        return maxdamage_preview(battle, decision)

    def choose_turn(self, battle, decision) -> int:
        return maxdamage_turn(battle, decision)
