"""One Pokemon and the field as the damage formula sees them at one decision
(:class:`Fighter`, :class:`Env`, read from a poke-env battle), and who moves first.

Our own stats are the request's real ones; an opponent's are league/battle/dex.py's
estimates, its speed a range. A Pokemon that can Mega Evolve this turn is also seen as
its mega forme (:func:`mega_fighter`: the forme's base stats with the same stat points
and nature, read back from our real stats; its types and ability).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from poke_env.battle import Field, SideCondition, Status, Weather
from poke_env.data import to_id_str

from league.battle.dex import (
    BOOST_MULT,
    FLYING,
    STATS,
    SV,
    Mechanics,
    champions_spread,
    champions_stat,
    species_estimates,
    type_index,
)
from league.battle.moves import MoveInfo
from league.battle.sheets import FoeSet


# ---------------------------------------------------------------- the battle's state, as the formula needs it
@dataclass(slots=True, frozen=True)
class Env:
    """Field state of one decision (frozen: :data:`_CLEAR` is shared)."""

    sun: bool = False
    rain: bool = False
    sand: bool = False
    snow: bool = False
    electric: bool = False
    grassy: bool = False
    psychic: bool = False
    misty: bool = False
    trick_room: bool = False
    gravity: bool = False
    # the ruin abilities held by an active Pokemon (any side): Showdown lowers that stat of
    # every active Pokemon but the ability's holders (data/abilities.ts ``onAnyModify*``),
    # so a holder's ally and foes alike (:func:`with_field_abilities`)
    sword_ruin: bool = False  # Def x 0.75
    beads_ruin: bool = False  # SpD x 0.75
    tablets_ruin: bool = False  # Atk x 0.75
    vessel_ruin: bool = False  # SpA x 0.75
    # Fairy Aura / Dark Aura on the field: every Pokemon's moves of that type x 5448/4096,
    # x 3072/4096 with Aura Break on the field (data/abilities.ts ``onAnyBasePower``)
    fairy_aura: bool = False
    dark_aura: bool = False
    aura_break: bool = False


_CLEAR = Env()
FIELD_ABILITIES = {  # ability -> the Env flag it sets while its holder is active
    "swordofruin": "sword_ruin",
    "beadsofruin": "beads_ruin",
    "tabletsofruin": "tablets_ruin",
    "vesselofruin": "vessel_ruin",
    "fairyaura": "fairy_aura",
    "darkaura": "dark_aura",
    "aurabreak": "aura_break",
}


def env_of(battle) -> Env:
    w = battle.weather
    f = battle.fields
    if not w and not f:  # most turns: no enum looked up (Enum.__hash__ is a Python call)
        return _CLEAR
    return Env(
        sun=Weather.SUNNYDAY in w or Weather.DESOLATELAND in w,
        rain=Weather.RAINDANCE in w or Weather.PRIMORDIALSEA in w,
        sand=Weather.SANDSTORM in w,
        snow=Weather.SNOWSCAPE in w or Weather.HAIL in w,
        electric=Field.ELECTRIC_TERRAIN in f,
        grassy=Field.GRASSY_TERRAIN in f,
        psychic=Field.PSYCHIC_TERRAIN in f,
        misty=Field.MISTY_TERRAIN in f,
        trick_room=Field.TRICK_ROOM in f,
        gravity=Field.GRAVITY in f,
    )


def with_field_abilities(env: Env, fighters) -> Env:
    """``env`` with the abilities of ``fighters`` (the active ones; None skipped) that act
    on the whole field (the ruin abilities, the auras), where known or certain: a Treasure
    of Ruin has one possible ability."""
    flags = {FIELD_ABILITIES[f.ability]: True for f in fighters if f is not None and f.ability in FIELD_ABILITIES}
    return dataclasses.replace(env, **flags) if flags else env


@dataclass(slots=True)
class Fighter:
    """One Pokemon as the damage formula sees it at one decision."""

    own: bool
    species: str
    types: tuple[int, ...]  # current types (tera applied)
    base_types: tuple[int, ...]  # before tera
    tera: int  # tera type index (-1 unknown)
    terastallized: bool
    level: int
    hp: float  # current HP (estimated for an opponent)
    max_hp: float
    atk: float
    def_: float
    spa: float
    spd: float
    spe: float  # best estimate (own: real)
    spe_min: float
    spe_max: float
    boosts: dict
    ability: str  # the ability when known (or certain), else ""
    abilities: tuple[str, ...]  # (ability,) when known, else the possible ones
    item: str  # "" none, "?" unknown
    status: Status | None
    weight: float
    grounded: float  # 1 grounded, 0 not, 0.5 unknown (Levitate possible)
    reflect: bool
    light_screen: bool
    aurora_veil: bool
    tailwind: bool
    first_turn: bool
    fainted_allies: int
    hp_frac: float


def poke_types(mon) -> tuple:
    """``tuple(mon.types)`` of a poke-env Pokemon without its two property calls and its
    list (this runs ~20 times a decision): poke-env's type_1 / type_2 rules (the tera
    type once terastallized, then temporary types, then the species'), read from the same
    fields (tests/unit/test_obs_speed.py holds the two equal)."""
    tmp = mon._temporary_types
    if mon._terastallized:
        tera = mon._terastallized_type
        return (tera if tera is not None else (tmp[0] if tmp else mon._type_1),)
    if tmp:
        return (tmp[0],) if len(tmp) == 1 else (tmp[0], tmp[1])
    t2 = mon._type_2
    return (mon._type_1,) if t2 is None else (mon._type_1, t2)


def known_moves(mon) -> dict:
    """``mon.moves`` of a poke-env Pokemon without its chain of property calls (three a
    read, ~70 reads a decision): the base moves of the move set Transform resolves to,
    poke-env's own answer when Mimic has replaced one (tests/unit/test_obs_speed.py holds
    the two equal)."""
    ms = mon._moves
    while ms._transform_moves is not None:
        ms = ms._transform_moves
    return ms._base_moves if ms._mimic_move is None else mon.moves


def hp_frac(mon) -> float:
    """``mon.current_hp_fraction`` without its three property calls (this runs ~30 times a
    decision): the same fields, the same result (0 when it has no HP)."""
    hp = mon._current_hp
    return hp / (mon._max_hp or 0) if hp else 0


def fighter(
    mon, own: bool, side_conditions: dict, fainted_allies: int = 0, mech: Mechanics = SV, sheet: FoeSet | None = None
) -> Fighter:
    """``sheet``: a foe's open team sheet entry (league.battle.sheets), read where play has
    not revealed the thing: its ability, its item while unknown, its tera type."""
    # poke-env's fields, not its properties (each a Python call; ~15 reads a fighter, four
    # fighters a decision): the same values (properties that compute are still called)
    species = mon._species
    level = mon._level or 50
    est = species_estimates(species, level, mech)
    stats = mon._stats if own else None
    if stats and stats.get("atk"):
        g = stats.get
        atk, def_, spa, spd, spe = (
            float(g("atk") or est[1]),
            float(g("def") or est[2]),
            float(g("spa") or est[3]),
            float(g("spd") or est[4]),
            float(g("spe") or est[5]),
        )
        max_hp = float(mon._max_hp or est[0])
        hp = float(mon._current_hp or 0)
        spe_min = spe_max = spe
    else:
        atk, def_, spa, spd, spe = est[1:6]
        max_hp = est[0]
        hp = hp_frac(mon) * max_hp
        spe_min, spe_max = est[6], est[7]
    ab = mon.ability
    if not ab and sheet is not None and sheet.ability:
        ab = sheet.ability
    if ab:
        abilities = (ab,)
    else:
        abilities = tuple(mon._possible_abilities or ())
        ab = abilities[0] if len(abilities) == 1 else ""
    item = mon._item
    if sheet is not None and item == "unknown_item":  # a consumed or removed item stays gone
        item = sheet.item
    item = "?" if item in (None, "unknown_item") and not own else (item or "")
    types = tuple([type_index(t) for t in poke_types(mon) if t is not None])
    base_types = tuple([type_index(t) for t in mon.base_types if t is not None])
    tera_type = mon._terastallized_type
    if tera_type is None and sheet is not None:
        tera_type = sheet.tera
    tera = type_index(tera_type)
    grounded = _grounded(types, ab, abilities, item)
    # side conditions by identity, not ``in`` (an enum's hash is a Python call); most turns none
    reflect = screen = veil = tailwind = False
    for c in side_conditions:
        if c is SideCondition.REFLECT:
            reflect = True
        elif c is SideCondition.LIGHT_SCREEN:
            screen = True
        elif c is SideCondition.AURORA_VEIL:
            veil = True
        elif c is SideCondition.TAILWIND:
            tailwind = True
    return Fighter(
        own,
        species,
        types,
        base_types,
        tera,
        bool(mon._terastallized),
        level,
        hp,
        max_hp,
        atk,
        def_,
        spa,
        spd,
        spe,
        spe_min,
        spe_max,
        mon._boosts,
        ab,
        abilities,
        item,
        mon._status,
        est[8],
        grounded,
        reflect,
        screen,
        veil,
        tailwind,
        mon._active_turns == 1,
        fainted_allies,
        hp / max_hp if max_hp > 0 else 0.0,
    )


_LEVITATING = frozenset({"levitate", "eelevate"})


def _grounded(types: tuple[int, ...], ab: str, abilities: tuple[str, ...], item: str) -> float:
    """1 grounded, 0 not (Flying, Air Balloon, a known Levitate), 0.5 when Levitate is possible."""
    lev = not _LEVITATING.isdisjoint(abilities)
    return 0.0 if FLYING in types or item == "airballoon" or (lev and ab) else (0.5 if lev else 1.0)


def mega_fighter(f: Fighter, mech: Mechanics) -> Fighter | None:
    """``f`` as the mega forme its item makes of it (Mega Evolution happens before anyone
    moves, so the turn's speed and damage are the forme's), None when it has none. Our
    own forme's stats keep the stat points and nature read back from our real stats
    (:func:`champions_spread`); an opponent's are estimated as any opponent's."""
    mega = mech.mega_species(f.species, f.item)
    e = mech.pokedex.get(mega or "")
    base = (mech.pokedex.get(f.species) or {}).get("baseStats")
    if mega is None or e is None or base is None:
        return None
    mb = e["baseStats"]
    if f.own and mech.stat_points:
        sps, p, m = champions_spread(
            tuple(base[s] for s in STATS), (int(f.max_hp), int(f.atk), int(f.def_), int(f.spa), int(f.spd), int(f.spe))
        )
        atk, def_, spa, spd, spe = (
            float(champions_stat(mb[s], s, sps[i], 1 if i == p else (-1 if i == m else 0)))
            for i, s in enumerate(STATS)
            if i > 0
        )
        spe_min = spe_max = spe
    else:
        est = species_estimates(mega, f.level, mech)
        atk, def_, spa, spd, spe, spe_min, spe_max = est[1:8]
    types = tuple(type_index(t) for t in e["types"])
    ab = to_id_str(e["abilities"]["0"])
    return dataclasses.replace(
        f,
        species=mega,
        types=types,
        base_types=types,
        atk=atk,
        def_=def_,
        spa=spa,
        spd=spd,
        spe=spe,
        spe_min=spe_min,
        spe_max=spe_max,
        ability=ab,
        abilities=(ab,),
        weight=float(e.get("weightkg", f.weight)),
        grounded=_grounded(types, ab, (ab,), f.item),
    )


# ---------------------------------------------------------------- speed
_WEATHER_SPEED = {
    "swiftswim": "rain",
    "chlorophyll": "sun",
    "sandrush": "sand",
    "slushrush": "snow",
    "surgesurfer": "electric",
}


def effective_speed(f: Fighter, env: Env, which: str = "mid") -> float:
    """Speed after boosts, paralysis, Tailwind, Choice Scarf and weather abilities.
    ``which``: "mid" (best estimate), "min" or "max" (an opponent's EV/nature range)."""
    s = f.spe if which == "mid" else (f.spe_min if which == "min" else f.spe_max)
    b = f.boosts.get("spe", 0)
    if b:
        s *= BOOST_MULT[max(-6, min(6, b))]
    if f.status == Status.PAR:
        s *= 0.5
    if f.tailwind:
        s *= 2.0
    if f.item == "choicescarf":
        s *= 1.5
    w = _WEATHER_SPEED.get(f.ability)
    if w is not None and getattr(env, w):
        s *= 2.0
    return s


def moves_first(me: Fighter, my_priority: int, foe: Fighter, env: Env) -> float:
    """1 if our move acts before the foe's (priority 0 assumed for theirs), 0 if after,
    0.5 when the foe's speed range straddles ours (speed ties too)."""
    if my_priority != 0:
        return 1.0 if my_priority > 0 else 0.0
    mine = effective_speed(me, env, "mid")
    lo, hi = effective_speed(foe, env, "min"), effective_speed(foe, env, "max")
    if env.trick_room:
        return 1.0 if mine < lo else (0.0 if mine > hi else 0.5)
    return 1.0 if mine > hi else (0.0 if mine < lo else 0.5)


_TRIAGE = frozenset(
    {
        "drainpunch",
        "gigadrain",
        "hornleech",
        "drainingkiss",
        "leechlife",
        "paraboliccharge",
        "matchagotcha",
        "bitterblade",
    }
)


def move_priority(me: Fighter, mi: MoveInfo) -> int:
    p = mi.priority
    a = me.ability
    if a == "prankster" and mi.category == 2:
        p += 1
    elif a == "galewings" and mi.type == FLYING and me.hp >= me.max_hp:
        p += 1
    elif a == "triage" and mi.id in _TRIAGE:
        p += 3
    return p
