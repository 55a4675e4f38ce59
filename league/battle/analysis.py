"""What each order of a turn would do: per (active slot, move, target, tera) and per
switch, the quantities a player reasons with. Computed from the battle and Showdown's
request with league/battle/dex.py and moves.py; the observation encoder writes them into the
observation, and the ``maxdamage`` baseline chooses from the same numbers.

Arrays (zero where nothing applies; slot order = Showdown's, move order = the
request's, so index j here is move j of the action codec):

    act_ids    [2, 4]              move ids (vocab) of each active slot's request moves
    act_move   [2, 4, ACT_MOVE_F]  per (slot, move): ACT_MOVE_FEATURES
    act_target [2, 4, 5, 2, ACT_TARGET_F]  per (slot, move, target t, tera b):
                                   ACT_TARGET_FEATURES; t as in the codec (0: our slot b,
                                   1: our slot a, 2: no target, 3: foe a, 4: foe b)
                                   b: the format's once-per-battle transformation with
                                   the move (tera; in Champions formats Mega Evolution,
                                   the move as the mega forme uses it, its speed too)
    switch     [4, SWITCH_F]       per brought Pokemon k (switch k): SWITCH_FEATURES
    threat     [2, 2, THREAT_F]    per (our active slot s, foe slot f): how hard foe f can
                                   hit our slot s this turn (THREAT_FEATURES): the best of
                                   its revealed damaging moves and, while fewer than four
                                   are revealed, an 80-power move of each of its types
                                   (its better attacking side); whether that knocks us out;
                                   whether it moves first

Damage figures are fractions: ``exp_*`` of the target's max HP (expected damage with
accuracy and hit count, capped at the HP it has left: no credit for overkill),
``lo_foes`` / ``hi_foes`` of its current HP (min roll / max roll, each capped at 1).
"""

from __future__ import annotations

import dataclasses
import math
from functools import lru_cache

import numpy as np

from league.battle.damage import Hit, damage, move_type, stab_of
from league.battle.dex import Mechanics, effectiveness, mechanics_of, type_index
from league.battle.fighter import (
    Env,
    Fighter,
    effective_speed,
    env_of,
    fighter,
    hp_frac,
    known_moves,
    mega_fighter,
    move_priority,
    moves_first,
    poke_types,
    with_field_abilities,
)
from league.battle.moves import MoveInfo, move_info
from league.battle.sheets import FoeSet, sheet_of

ACT_MOVE_FEATURES = [
    "present",
    "disabled",
    "pp_frac",
    "stab",
    "stab_tera",
    "locked",
    "priority",
    "fake_out_usable",
    "can_tera",
]
ACT_TARGET_FEATURES = [
    "aims",
    "foes_hit",
    "hits_ally",
    "hits_self",
    "exp_foes",
    "lo_foes",
    "hi_foes",
    "ko_lo",
    "ko_hi",
    "eff",
    "immune",
    "exp_ally",
    "ko_ally",
    "first",
    "accuracy",
    "stab",
]
SWITCH_FEATURES = ["available", "hp_frac", "worst_in_eff", "best_out_eff", "outspeeds"] + [
    f"brought_{k}" for k in range(4)
]
THREAT_FEATURES = ["present", "exp", "ko_lo", "ko_hi", "first", "known"]
ACT_MOVE_F, ACT_TARGET_F, SWITCH_F = len(ACT_MOVE_FEATURES), len(ACT_TARGET_FEATURES), len(SWITCH_FEATURES)
THREAT_F = len(THREAT_FEATURES)
AM = {n: i for i, n in enumerate(ACT_MOVE_FEATURES)}
AT = {n: i for i, n in enumerate(ACT_TARGET_FEATURES)}
SW = {n: i for i, n in enumerate(SWITCH_FEATURES)}
EXP_FOES, EXP_ALLY = AT["exp_foes"], AT["exp_ally"]

CHOOSABLE = ("normal", "any", "adjacentFoe", "adjacentAlly", "adjacentAllyOrSelf")
_FAKE_OUT = ("fakeout", "firstimpression")
_LOG2 = math.log(2.0)


def _log_eff(e: float) -> float:
    """log2 of an effectiveness, /2, in [-1, 1] (immunity reads as 1/4: see ``immune``)."""
    return max(-1.0, min(1.0, math.log(max(e, 0.25)) / _LOG2 / 2.0))


def _aims(ttype: str | None, slot: int) -> list[tuple[int, tuple[str, ...]]]:
    """(target index, positions hit) for each target a move of ``ttype`` can take from
    ``slot`` (whether or not the Pokemon there is alive: the mask says what is legal)."""
    self_t, ally_t = (1, 0) if slot == 0 else (0, 1)
    if ttype in ("normal", "any"):
        return [(3, ("foe0",)), (4, ("foe1",)), (ally_t, ("ally",))]
    if ttype == "adjacentFoe":
        return [(3, ("foe0",)), (4, ("foe1",))]
    if ttype == "adjacentAlly":
        return [(ally_t, ("ally",))]
    if ttype == "adjacentAllyOrSelf":
        return [(self_t, ("self",)), (ally_t, ("ally",))]
    if ttype == "allAdjacentFoes":
        return [(2, ("foe0", "foe1"))]
    if ttype == "allAdjacent":
        return [(2, ("foe0", "foe1", "ally"))]
    if ttype in ("randomNormal", "scripted", None):
        return [(2, ("random",))]
    return [(2, ())]  # self, sides, field


class TurnAnalysis:
    """The fighters of one decision (both sides' actives, our brought four)."""

    __slots__ = ("env", "own", "foes", "battle", "mech", "sheets")

    def __init__(self, battle, foe_sheet: dict[str, FoeSet] | None = None):
        """``foe_sheet``: the foe's open team sheet (league.battle.sheets.foe_sets), when the
        battle has one: the foes' unrevealed ability, item, tera type and moves come from it."""
        self.battle = battle
        self.mech: Mechanics = mechanics_of(battle.format)
        mech = self.mech
        self.env = env_of(battle)
        team = battle.team
        fainted = sum(1 for m in team.values() if m.fainted)
        own_sc, opp_sc = battle.side_conditions, battle.opponent_side_conditions
        self.own = [
            fighter(m, True, own_sc, fainted, mech) if m is not None and not m.fainted else None
            for m in battle.active_pokemon[:2]
        ]
        while len(self.own) < 2:
            self.own.append(None)
        foes = battle.opponent_active_pokemon[:2]
        # each active foe's sheet entry (None without a sheet)
        self.sheets = [sheet_of(m.species, foe_sheet) if foe_sheet and m is not None else None for m in foes]
        self.foes = [
            fighter(m, False, opp_sc, 0, mech, e) if m is not None and not m.fainted else None
            for m, e in zip(foes, self.sheets)
        ]
        while len(self.foes) < 2:
            self.foes.append(None)
            self.sheets.append(None)
        self.env = with_field_abilities(self.env, self.own + self.foes)  # a third Pokemon's ruin or aura counts too


def analyse_moves(
    battle,
    view,
    act_ids: np.ndarray,
    act_move: np.ndarray,
    act_target: np.ndarray,
    move_vocab_id,
    ta: TurnAnalysis | None = None,
) -> TurnAnalysis | None:
    """Fill ``act_ids``, ``act_move``, ``act_target`` (zeroed beforehand) for a move request."""
    if view.kind != "move":
        return None
    ta = ta or TurnAnalysis(battle)
    env = ta.env
    foes = ta.foes
    for s in range(min(2, len(view.active))):
        me = ta.own[s]
        act = view.active[s]
        if me is None or not act or s >= len(view.side) or view.side[s].get("commanding"):
            continue
        ally = ta.own[1 - s]
        can_tera = bool(act.get("canTerastallize"))
        # Champions: the b = 1 orders mega-evolve first, so they are the mega forme's moves
        mega = mega_fighter(me, ta.mech) if act.get("canMegaEvo") else None
        gimmick = can_tera or bool(act.get("canMegaEvo"))
        moves = act.get("moves", [])[:4]
        locked = len(moves) == 1 and "target" not in moves[0]
        first_vs = [moves_first(me, 0, f, env) if f is not None else 0.0 for f in foes]
        first_vs_mega = [moves_first(mega, 0, f, env) if f is not None else 0.0 for f in foes] if mega else []
        idx: list[tuple[int, int, int]] = []
        rows: list[tuple] = []
        for j, rm in enumerate(moves):
            mid = rm.get("id", "")
            mi = move_info(mid, ta.mech)
            act_ids[s, j] = move_vocab_id(mid)
            mt = move_type(me, mi, env, False)
            stab0 = stab_of(me, mt, False)
            if mega is not None:
                stab1 = stab_of(mega, move_type(mega, mi, env, False), False)
            else:
                stab1 = stab_of(me, move_type(me, mi, env, True), True) if can_tera else stab0
            prio = move_priority(me, mi)
            pp, maxpp = rm.get("pp"), rm.get("maxpp")
            act_move[s, j] = (
                1.0,
                float(bool(rm.get("disabled"))),
                (pp / maxpp) if pp is not None and maxpp else 1.0,
                stab0 / 2.0,
                stab1 / 2.0,
                float(locked),
                prio / 5.0,
                float(mid in _FAKE_OUT and me.first_turn),
                float(gimmick),
            )
            first_move = _first(first_vs, prio)
            damaging = mi.category < 2
            aims = _aims(rm.get("target") if "target" in rm else None, s)
            # the move's hits on each position, once (the spread x0.75 is the move's, not the target's)
            n_live = sum(f is not None for f in foes) + (ally is not None and mi.target == "allAdjacent")
            spread = mi.target in ("allAdjacentFoes", "allAdjacent") and n_live > 1
            hits0 = _hits(me, ally, foes, mi, aims, damaging, env, spread, False)
            variants = [(hits0, first_move)]
            if mega is not None:
                variants.append(
                    (
                        _hits(mega, ally, foes, mi, aims, damaging, env, spread, False),
                        _first(first_vs_mega, move_priority(mega, mi)),
                    )
                )
            elif can_tera and damaging:
                if mi.bp_kind == "terablast":
                    variants.append((_hits(me, ally, foes, mi, aims, damaging, env, spread, True), first_move))
                elif stab1 != stab0:
                    r = stab1 / stab0
                    variants.append(({k: h.scaled(r) for k, h in hits0.items()}, first_move))
            acc = 1.0 if mi.never_miss else min(1.0, mi.accuracy)
            for t, positions in aims:
                for b, (hits, first) in enumerate(variants):
                    row = _target_row(ally, foes, positions, hits, damaging, first, acc)
                    idx.append((j, t, b))
                    rows.append(row)
                    if gimmick and len(variants) == 1:
                        idx.append((j, t, 1))
                        rows.append(row)
        if rows:  # row by row into the slot's block: ~0.75x numpy's fancy assignment of them all
            blk = act_target[s]
            for (j, t, b), row in zip(idx, rows):
                blk[j, t, b] = row
    return ta


def _first(first_vs: list[float], prio: int) -> list[float] | tuple[float, float]:
    """Whether a move of priority ``prio`` acts before each foe (theirs taken as 0)."""
    return first_vs if prio == 0 else ((1.0, 1.0) if prio > 0 else (0.0, 0.0))


def _hits(me: Fighter, ally, foes, mi, aims, damaging: bool, env: Env, spread: bool, tera: bool) -> dict:
    """Hit on each position a move can reach: "foe0", "foe1", "ally" (when alive)."""
    out: dict[str, Hit] = {}
    if not damaging:
        return out
    wanted = {p for _, ps in aims for p in ps}
    if "random" in wanted:
        wanted |= {"foe0", "foe1"}
    for k, f in (("foe0", foes[0]), ("foe1", foes[1])):
        if k in wanted and f is not None:
            out[k] = damage(me, mi, f, env, spread=spread, tera=tera)
    if "ally" in wanted and ally is not None:
        out["ally"] = damage(me, mi, ally, env, spread=spread, tera=tera)
    return out


def _target_row(ally: Fighter | None, foes, positions, hits: dict, damaging: bool, first_move, acc: float) -> tuple:
    rand = "random" in positions
    if rand:
        targets = [(i, f) for i, f in enumerate(foes) if f is not None]
    else:
        targets = [(i, foes[i]) for i, p in ((0, "foe0"), (1, "foe1")) if p in positions and foes[i] is not None]
    hits_ally = "ally" in positions and ally is not None
    exp_f = lo_f = hi_f = ko_lo = ko_hi = best_eff = stab = 0.0
    immune = damaging and bool(targets)
    first = 1.0
    w = 1.0 / len(targets) if rand and targets else 1.0
    for i, f in targets:
        first = min(first, first_move[i])
        h = hits.get("foe0" if i == 0 else "foe1")
        if h is None:
            continue
        cur = max(f.hp, 1e-6)
        exp_f += w * min(h.exp / f.max_hp, f.hp_frac)
        lo_f += w * min(h.lo / cur, 1.0)
        hi_f += w * min(h.hi / cur, 1.0)
        ko_lo += w * (h.lo >= cur)
        ko_hi += w * (h.hi >= cur)
        if h.eff > best_eff:
            best_eff = h.eff
        if h.hi > 0:
            immune = False
        if h.stab > stab:
            stab = h.stab
    if not targets:
        first = min((first_move[i] for i, f in enumerate(foes) if f is not None), default=0.5)
    exp_a = ko_a = 0.0
    h = hits.get("ally") if hits_ally else None
    if h is not None and ally is not None:  # (hits_ally says so)
        exp_a = min(h.exp / ally.max_hp, ally.hp_frac)
        ko_a = float(h.hi >= max(ally.hp, 1e-6))
    return (
        1.0,
        0.5 if rand else len(targets) / 2.0,
        float(hits_ally),
        float("self" in positions),
        exp_f,
        lo_f,
        hi_f,
        ko_lo / 2.0,
        ko_hi / 2.0,
        _log_eff(best_eff) if targets and damaging else 0.0,
        float(immune),
        exp_a,
        ko_a,
        first,
        acc,
        stab / 2.0,
    )


def _types_of(mon) -> tuple[int, ...]:
    return tuple(type_index(t) for t in poke_types(mon) if t is not None)


def _attack_types(mon, mech: Mechanics, sheet: FoeSet | None = None) -> list[int] | tuple[int, ...]:
    """Types of a Pokemon's known damaging moves (a foe's open sheet's first); its own
    types when none is known."""
    return _move_types(_known_moves(mon, sheet), mech) or [t for t in _types_of(mon) if t >= 0]


def _known_moves(mon, sheet: FoeSet | None) -> tuple[str, ...]:
    """A Pokemon's moves as far as known: the ones play revealed, or a foe's open sheet's
    in its order and then any other seen (as the observation's rows: league/battle/obs.py)."""
    if sheet is None:
        return tuple(known_moves(mon))[:4]
    return tuple(dict.fromkeys([*sheet.moves, *known_moves(mon)]))[:4]


@lru_cache(maxsize=16384)
def _move_types(move_ids: tuple[str, ...], mech: Mechanics) -> tuple[int, ...]:
    """The types of the damaging moves among ``move_ids`` (in order, repeats kept)."""
    out = [move_info(m, mech).type for m in move_ids if move_info(m, mech).category < 2]
    return tuple(t for t in out if t >= 0)


def analyse_switches(battle, brought, switch: np.ndarray, ta: TurnAnalysis | None = None) -> None:
    """Fill ``switch`` (zeroed beforehand) for the brought four (switch k -> brought[k])."""
    if not brought:
        return
    team = battle.team
    ta = ta or TurnAnalysis(battle)
    foes_mons, sheets = [], []
    for m, e in zip(battle.opponent_active_pokemon[:2], ta.sheets):
        if m is not None and not m.fainted:
            foes_mons.append(m)
            sheets.append(e)
    foe_att = [_attack_types(m, ta.mech, e) for m, e in zip(foes_mons, sheets)]
    foe_types = [_types_of(m) for m in foes_mons]
    foe_f = [f for f in ta.foes if f is not None]
    env = ta.env
    for k, key in enumerate(brought[:4]):
        mon = team.get(key)
        row = switch[k]
        row[SW["brought_0"] + k] = 1.0
        if mon is None:
            continue
        row[SW["available"]] = float(not mon.fainted and not mon.active)
        row[SW["hp_frac"]] = hp_frac(mon)
        if not foes_mons:
            continue
        mine = _types_of(mon)
        worst = max(effectiveness(t, mine) for ts in foe_att for t in ts) if foe_att else 1.0
        my_att = _attack_types(mon, ta.mech)
        best = max(effectiveness(t, ft) for t in my_att for ft in foe_types) if my_att else 1.0
        row[SW["worst_in_eff"]] = _log_eff(worst)
        row[SW["best_out_eff"]] = _log_eff(best)
        spe = float((mon.stats or {}).get("spe") or 0.0)
        out = 0.0
        for f in foe_f:
            theirs = effective_speed(f, env)
            out += (spe < theirs) if env.trick_room else (spe > theirs)
        row[SW["outspeeds"]] = out / max(len(foe_f), 1)


# ---------------------------------------------------------------- what the foes threaten
_SPREAD = ("allAdjacentFoes", "allAdjacent")
_PROBE_BP = 80.0  # a typical STAB attack's power, for the moves a foe has not revealed yet


@lru_cache(maxsize=64)
def _probe(type_: int, physical: bool) -> MoveInfo:
    """A plain 80-power single-target move of ``type_``: a foe's likely STAB attack."""
    base = move_info("tackle")
    return dataclasses.replace(
        base,
        id="",
        type=type_,
        category=0 if physical else 1,
        bp=_PROBE_BP,
        accuracy=1.0,
        never_miss=False,
        contact=False,
    )


def _foe_moves(mon, foe: Fighter, mech: Mechanics, sheet: FoeSet | None = None) -> tuple[list[MoveInfo], int]:
    """The damaging moves a foe is credited with, and how many of its moves are known
    (revealed, or on its open sheet)."""
    known = _known_moves(mon, sheet)
    out = [mi for mi in (move_info(m, mech) for m in known) if mi.exists and mi.category < 2]
    if len(known) < 4:
        physical = foe.atk >= foe.spa
        out += [_probe(t, physical) for t in foe.types if t >= 0]
    return out, len(known)


def analyse_threats(battle, threat: np.ndarray, ta: TurnAnalysis | None = None) -> None:
    """Fill ``threat`` [2, 2, THREAT_F] (zeroed beforehand): per (our slot s, foe slot f),
    the most damage foe f can do to our slot s with one move (expected share of our max
    HP, capped at the HP we have), whether its low / high roll knocks us out, whether it
    moves before us (priority 0 on both sides; 0.5 when its speed range straddles ours),
    and the share of its four moves revealed."""
    ta = ta or TurnAnalysis(battle)
    env = ta.env
    n_own = sum(m is not None for m in ta.own)
    foes_mons = battle.opponent_active_pokemon[:2]
    for f, foe in enumerate(ta.foes):
        if foe is None:
            continue
        moves, n_known = _foe_moves(foes_mons[f], foe, ta.mech, ta.sheets[f])
        for s, me in enumerate(ta.own):
            if me is None:
                continue
            cur = max(me.hp, 1e-6)
            exp = ko_lo = ko_hi = 0.0
            for mi in moves:
                h = damage(foe, mi, me, env, spread=mi.target in _SPREAD and n_own > 1)
                exp = max(exp, min(h.exp / me.max_hp, me.hp_frac))
                ko_lo = max(ko_lo, float(h.lo >= cur))
                ko_hi = max(ko_hi, float(h.hi >= cur))
            first = 1.0 - moves_first(me, 0, foe, env)
            threat[s, f] = (1.0, exp, ko_lo, ko_hi, first, n_known / 4.0)
