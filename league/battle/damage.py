"""The damage formula, over league/battle/dex.py's data and fighter.py's Fighter and Env.

Damage (Gen 5+ formula, as Showdown's ``sim/battle-actions.ts`` computes it, in floats):

    base = floor(floor(floor(2 L / 5 + 2) * BP * A / D) / 50) + 2
    dmg  = base * spread(0.75) * weather * roll(0.85..1) * STAB * type * burn * other

with A, D the attacker's attacking and the defender's defending stat after boosts,
items and abilities. Our own stats are the request's real ones; an opponent's are
dex.py's estimates. Known or certain abilities and items apply; an opponent's ability
that is only possible (several candidates) counts fully in the minimum, not at all in
the maximum, and by its share of the candidates in the expectation. Not modelled:
critical hits, Helping Hand, Friend Guard, protection this turn, abilities and items
outside the short lists below. The attacker and the defender are
league/battle/fighter.py's :class:`Fighter`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from poke_env.battle import Status

from league.battle.dex import (
    ACC_MULT,
    BOOST_MULT,
    DRAGON,
    ELECTRIC,
    FIRE,
    GRASS,
    GROUND,
    ICE,
    PSYCHIC,
    ROCK,
    TYPE_INDEX,
    WATER,
    effectiveness,
)
from league.battle.fighter import Env, Fighter, effective_speed
from league.battle.moves import MoveInfo

# ---------------------------------------------------------------- abilities and items (short lists)
_IMMUNE_ABILITY = {  # ability -> attacking type it nullifies
    "levitate": "GROUND",
    "eartheater": "GROUND",
    "flashfire": "FIRE",
    "wellbakedbody": "FIRE",
    "waterabsorb": "WATER",
    "stormdrain": "WATER",
    "dryskin": "WATER",
    "voltabsorb": "ELECTRIC",
    "lightningrod": "ELECTRIC",
    "motordrive": "ELECTRIC",
    "sapsipper": "GRASS",
}
_IMMUNE_ABILITY_IDX = {a: TYPE_INDEX[t] for a, t in _IMMUNE_ABILITY.items()}
_ATE = {
    "pixilate": "FAIRY",
    "aerilate": "FLYING",
    "refrigerate": "ICE",
    "galvanize": "ELECTRIC",
    "dragonize": "DRAGON",
}  # Dragonize: Champions (Mega Feraligatr)
_ATE_IDX = {a: TYPE_INDEX[t] for a, t in _ATE.items()}
_NORMAL = TYPE_INDEX["NORMAL"]
_T = TYPE_INDEX


_DEF_ABILITIES = frozenset(_IMMUNE_ABILITY) | {
    "windrider",
    "bulletproof",
    "soundproof",
    "thickfat",
    "heatproof",
    "purifyingsalt",
    "waterbubble",
    "multiscale",
    "shadowshield",
    "filter",
    "solidrock",
    "prismarmor",
    "icescales",
    "fluffy",
    "furcoat",
    "dryskin",
}
_ATT_ABILITIES = frozenset(
    {
        "technician",
        "toughclaws",
        "ironfist",
        "sharpness",
        "strongjaw",
        "megalauncher",
        "punkrock",
        "sheerforce",
        "reckless",
        "transistor",
        "dragonsmaw",
        "steelworker",
        "steelyspirit",
        "rockypayload",
        "tintedlens",
        "neuroforce",
    }
)


def _defender_ability_factor(
    ability: str, mi: MoveInfo, mtype: int, eff: float, full_hp: bool, physical: bool
) -> float:
    """Multiplier one defender ability applies to a hit (0 for an immunity)."""
    if ability not in _DEF_ABILITIES:
        return 1.0
    if _IMMUNE_ABILITY_IDX.get(ability) == mtype:
        return 0.0
    if ability == "windrider" and mi.wind:
        return 0.0
    if ability == "bulletproof" and mi.bullet:
        return 0.0
    if ability == "soundproof" and mi.sound:
        return 0.0
    if ability in ("thickfat",) and mtype in (_T["FIRE"], _T["ICE"]):
        return 0.5
    if ability == "heatproof" and mtype == _T["FIRE"]:
        return 0.5
    if ability == "purifyingsalt" and mtype == _T["GHOST"]:
        return 0.5
    if ability == "waterbubble" and mtype == _T["FIRE"]:
        return 0.5
    if ability in ("multiscale", "shadowshield") and full_hp:
        return 0.5
    if ability in ("filter", "solidrock", "prismarmor") and eff > 1:
        return 0.75
    if ability == "icescales" and not physical:
        return 0.5
    if ability == "fluffy":
        f = 0.5 if mi.contact else 1.0
        return f * (2.0 if mtype == _T["FIRE"] else 1.0)
    if ability == "furcoat" and physical:
        return 0.5
    if ability == "dryskin" and mtype == _T["FIRE"]:
        return 1.25
    return 1.0


def _attacker_ability_power(ability: str, mi: MoveInfo, mtype: int, eff: float, bp: float) -> float:
    if ability not in _ATT_ABILITIES:
        return 1.0
    if ability == "technician" and bp <= 60:
        return 1.5
    if ability == "toughclaws" and mi.contact:
        return 1.3
    if ability == "ironfist" and mi.punch:
        return 1.2
    if ability == "sharpness" and mi.slicing:
        return 1.5
    if ability == "strongjaw" and mi.bite:
        return 1.5
    if ability == "megalauncher" and mi.pulse:
        return 1.5
    if ability == "punkrock" and mi.sound:
        return 1.3
    if ability == "sheerforce" and mi.has_secondary:
        return 1.3
    if ability == "reckless" and mi.id in _RECKLESS:
        return 1.2
    if ability == "transistor" and mtype == _T["ELECTRIC"]:
        return 1.3
    if ability == "dragonsmaw" and mtype == _T["DRAGON"]:
        return 1.5
    if ability in ("steelworker", "steelyspirit") and mtype == _T["STEEL"]:
        return 1.5
    if ability == "rockypayload" and mtype == _T["ROCK"]:
        return 1.5
    if ability == "tintedlens" and 0 < eff < 1:
        return 2.0
    if ability == "neuroforce" and eff > 1:
        return 1.25
    return 1.0


_TYPE_ITEM = {
    "charcoal": "FIRE",
    "mysticwater": "WATER",
    "miracleseed": "GRASS",
    "magnet": "ELECTRIC",
    "nevermeltice": "ICE",
    "blackbelt": "FIGHTING",
    "poisonbarb": "POISON",
    "softsand": "GROUND",
    "sharpbeak": "FLYING",
    "twistedspoon": "PSYCHIC",
    "silverpowder": "BUG",
    "hardstone": "ROCK",
    "spelltag": "GHOST",
    "dragonfang": "DRAGON",
    "blackglasses": "DARK",
    "metalcoat": "STEEL",
    "silkscarf": "NORMAL",
    "fairyfeather": "FAIRY",
}
_TYPE_ITEM_IDX = {k: TYPE_INDEX[v] for k, v in _TYPE_ITEM.items()}


# ---------------------------------------------------------------- damage
@dataclass(slots=True)
class Hit:
    """Damage of one move on one target, in HP (min roll with worst-case modifiers, max
    roll with best-case ones, expectation with the accuracy and the expected hit count)."""

    lo: float
    hi: float
    exp: float
    eff: float  # type effectiveness (0 immune)
    stab: float

    def scaled(self, r: float) -> Hit:
        return Hit(self.lo * r, self.hi * r, self.exp * r, self.eff, self.stab * r)


_NO_HIT = Hit(0.0, 0.0, 0.0, 1.0, 1.0)


def move_type(att: Fighter, mi: MoveInfo, env: Env, tera: bool) -> int:
    t = mi.type
    k = mi.bp_kind
    if k == "terablast" and (att.terastallized or tera) and att.tera >= 0:
        return att.tera
    if k == "weatherball":
        if env.sun:
            return FIRE
        if env.rain:
            return WATER
        if env.sand:
            return ROCK
        if env.snow:
            return ICE
    if t == _NORMAL and att.ability in _ATE_IDX:
        return _ATE_IDX[att.ability]
    return t


def stab_of(att: Fighter, mtype: int, tera: bool) -> float:
    """STAB with terastallization (current, or hypothetical when ``tera``)."""
    adapt = att.ability == "adaptability"
    if att.terastallized or tera:
        t = att.tera
        in_base = mtype in att.base_types
        if mtype == t and t >= 0:
            if in_base:
                return 2.25 if adapt else 2.0
            return 2.0 if adapt else 1.5
        return 1.5 if in_base else 1.0
    if mtype in att.types:
        return 2.0 if adapt else 1.5
    return 1.0


def _bp(att: Fighter, mi: MoveInfo, dfn: Fighter, env: Env) -> tuple[float, float]:
    """(min, max) base power, for moves whose power depends on the state."""
    k, bp = mi.bp_kind, mi.bp
    p: float  # the power of the branch taken
    if not k or k == "flat" or k == "terablast" or k == "collision":
        return bp, bp
    if k == "weight":
        w = dfn.weight
        p = 20 if w < 10 else 40 if w < 25 else 60 if w < 50 else 80 if w < 100 else 100 if w < 200 else 120
        return p, p
    if k == "weight_ratio":
        r = att.weight / max(dfn.weight, 0.1)
        p = 120 if r >= 5 else 100 if r >= 4 else 80 if r >= 3 else 60 if r >= 2 else 40
        return p, p
    if k == "user_hp":
        p = max(1.0, 150.0 * att.hp_frac)
        return p, p
    if k == "acrobatics":
        if att.item == "?":
            return 55.0, 110.0
        return (110.0, 110.0) if not att.item else (55.0, 55.0)
    if k == "facade":
        return (140.0, 140.0) if att.status in (Status.BRN, Status.PSN, Status.TOX, Status.PAR) else (70.0, 70.0)
    if k == "hex":
        return (130.0, 130.0) if dfn.status not in (None, Status.FNT) else (65.0, 65.0)
    if k == "venoshock":
        return (130.0, 130.0) if dfn.status in (Status.PSN, Status.TOX) else (65.0, 65.0)
    if k == "brine":
        return (130.0, 130.0) if dfn.hp_frac <= 0.5 else (65.0, 65.0)
    if k == "weatherball":
        return (100.0, 100.0) if (env.sun or env.rain or env.sand or env.snow) else (50.0, 50.0)
    if k == "gyroball":
        me = max(effective_speed(att, env), 1.0)
        return (
            min(150.0, 25.0 * effective_speed(dfn, env, "min") / me + 1),
            min(150.0, 25.0 * effective_speed(dfn, env, "max") / me + 1),
        )
    if k == "electroball":
        me = effective_speed(att, env)

        def power(s: float) -> float:
            r = me / max(s, 1.0)
            return 150.0 if r >= 4 else 120.0 if r >= 3 else 80.0 if r >= 2 else 60.0 if r >= 1 else 40.0

        return power(effective_speed(dfn, env, "max")), power(effective_speed(dfn, env, "min"))
    if k == "storedpower":
        p = 20.0 + 20.0 * sum(v for v in att.boosts.values() if v > 0)
        return p, p
    if k == "lastrespects":
        p = 50.0 + 50.0 * att.fainted_allies
        return p, p
    if k == "ragefist":
        return 50.0, 150.0
    if k == "expandingforce":
        return (120.0, 120.0) if env.psychic and att.grounded == 1.0 else (80.0, 80.0)
    if k == "knockoff":
        if dfn.item == "?":
            return 65.0, 97.5
        return (97.5, 97.5) if dfn.item else (65.0, 65.0)
    if k == "psyblade":
        return (120.0, 120.0) if env.electric else (80.0, 80.0)
    if k == "tripleaxel":
        return 20.0, 40.0  # per hit: 20, 40, 60 over three hits (mean 40)
    if k == "hardpress":
        p = max(1.0, 100.0 * dfn.hp_frac)
        return p, p
    if k == "reversal":
        r = 48 * att.hp_frac
        p = 200 if r < 2 else 150 if r < 5 else 100 if r < 10 else 80 if r < 17 else 40 if r < 33 else 20
        return float(p), float(p)
    if k == "beatup":
        return 0.0, 0.0
    return bp, bp


def _boosted(stat: float, boosts: dict, key: str) -> float:
    b = boosts.get(key, 0)
    return stat * BOOST_MULT[max(-6, min(6, b))] if b else stat


_RECKLESS = frozenset(
    {
        "bravebird",
        "flareblitz",
        "wavecrash",
        "woodhammer",
        "headsmash",
        "doubleedge",
        "wildcharge",
        "headlongrush",
        "volttackle",
    }
)


def _defender_factors(dfn: Fighter, mi: MoveInfo, mtype: int, eff: float, physical: bool) -> tuple:
    """The defender's ability factor: worst case (min), best case (max), expectation over
    the abilities it may have (its own when revealed)."""
    abil = dfn.abilities
    if not abil:
        return 1.0, 1.0, 1.0
    full = dfn.hp >= dfn.max_hp
    if dfn.ability:
        f = _defender_ability_factor(dfn.ability, mi, mtype, eff, full, physical)
        return f, f, f
    facs = [_defender_ability_factor(a, mi, mtype, eff, full, physical) for a in abil]
    return min(facs), max(facs), sum(facs) / len(facs)


def _accuracy(att: Fighter, mi: MoveInfo, dfn: Fighter, env: Env) -> float:
    if mi.never_miss:
        return 1.0
    acc = mi.accuracy
    ab, eb = att.boosts.get("accuracy", 0), dfn.boosts.get("evasion", 0)
    if ab or eb:
        acc = acc * ACC_MULT[max(-6, min(6, ab))] / ACC_MULT[max(-6, min(6, eb))]
    if env.gravity:
        acc *= 5 / 3
    return min(acc, 1.0)


def _fixed_damage(att: Fighter, fx: str, dfn: Fighter) -> float:
    """HP a fixed-damage move takes (Night Shade, Super Fang, ...), before the defender's HP cap."""
    if fx == "level":
        return float(att.level)
    if fx == "half":
        return max(1.0, dfn.hp / 2)
    if fx == "ohko":
        return dfn.hp if att.level >= dfn.level else 0.0
    if fx == "user_hp":
        return att.hp
    if fx == "endeavor":
        return max(0.0, dfn.hp - att.hp)
    return 0.0  # counter-like: nothing known in advance


def _attack_defence(att: Fighter, mi: MoveInfo, dfn: Fighter, env: Env, physical: bool) -> tuple[float, float]:
    """The attacking and defending stats after boosts, weather, items, abilities and ruin
    (a ruin ability lowers that stat of every active Pokemon but its holders: the
    attacker's, the defender's, or a third active one's through ``env``)."""
    aa, da = att.ability, dfn.ability  # Unaware ignores the other side's boosts
    if mi.uses_target_atk:
        a = _boosted(dfn.atk, {} if aa == "unaware" else dfn.boosts, "atk")
    elif mi.uses_def:
        a = _boosted(att.def_, {} if da == "unaware" else att.boosts, "def")
    elif physical:
        a = _boosted(att.atk, {} if da == "unaware" else att.boosts, "atk")
    else:
        a = _boosted(att.spa, {} if da == "unaware" else att.boosts, "spa")
    dboosts = {} if aa == "unaware" else dfn.boosts
    if physical or mi.special_vs_def:
        d = _boosted(dfn.def_, dboosts, "def")
        if env.snow and ICE in dfn.types:
            d *= 1.5
        if (env.sword_ruin or aa == "swordofruin") and da != "swordofruin":
            d *= 0.75
    else:
        d = _boosted(dfn.spd, dboosts, "spd")
        if env.sand and ROCK in dfn.types:
            d *= 1.5
        if dfn.item == "assaultvest":
            d *= 1.5
        if (env.beads_ruin or aa == "beadsofruin") and da != "beadsofruin":
            d *= 0.75
    if dfn.item == "eviolite":
        d *= 1.5
    if aa:
        if physical:
            if aa in ("hugepower", "purepower"):
                a *= 2.0
            elif aa == "hustle":
                a *= 1.5
            elif aa == "guts" and att.status not in (None, Status.FNT):
                a *= 1.5
            elif aa == "orichalcumpulse" and env.sun:
                a *= 5461 / 4096
        else:
            if aa == "solarpower" and env.sun:
                a *= 1.5
            elif aa == "hadronengine" and env.electric:
                a *= 5461 / 4096
    if physical:
        if att.item == "choiceband":
            a *= 1.5
        if (env.tablets_ruin or da == "tabletsofruin") and aa != "tabletsofruin":
            a *= 0.75
    else:
        if att.item == "choicespecs":
            a *= 1.5
        if (env.vessel_ruin or da == "vesselofruin") and aa != "vesselofruin":
            a *= 0.75
    return a, d


def _modifier(
    att: Fighter, mi: MoveInfo, dfn: Fighter, env: Env, mtype: int, eff: float, physical: bool, bp_hi: float
) -> float:
    """The final damage modifier without STAB and effectiveness: weather, terrain, burn,
    screens, the attacker's ability and item."""
    mod = 1.0
    if (env.fairy_aura and mtype == _T["FAIRY"]) or (env.dark_aura and mtype == _T["DARK"]):
        mod *= (3072 if env.aura_break else 5448) / 4096  # an aura on the field: every Pokemon's moves
    if env.sun or att.ability == "megasol":  # Mega Sol (Champions): its moves act as in sun
        mod *= 1.5 if mtype == FIRE else (0.5 if mtype == WATER else 1.0)
    elif env.rain:
        mod *= 1.5 if mtype == WATER else (0.5 if mtype == FIRE else 1.0)
    if att.grounded == 1.0 and (
        (env.electric and mtype == ELECTRIC) or (env.grassy and mtype == GRASS) or (env.psychic and mtype == PSYCHIC)
    ):
        mod *= 1.3
    if dfn.grounded == 1.0:
        if env.misty and mtype == DRAGON:
            mod *= 0.5
        if env.grassy and mi.id in ("earthquake", "bulldoze"):
            mod *= 0.5
    aa = att.ability
    if physical and att.status == Status.BRN and mi.id != "facade" and aa != "guts":
        mod *= 0.5
    if dfn.aurora_veil or (dfn.reflect if physical else dfn.light_screen):
        mod *= 2732 / 4096  # screens in doubles
    if aa:
        mod *= _attacker_ability_power(aa, mi, mtype, eff, bp_hi)
        if aa in _ATE_IDX and mi.type == _NORMAL:
            mod *= 1.2
    it = att.item
    if it:
        if it == "lifeorb":
            mod *= 1.3
        elif it == "expertbelt" and eff > 1:
            mod *= 1.2
        elif _TYPE_ITEM_IDX.get(it) == mtype:
            mod *= 1.2
    if mi.bp_kind == "collision" and eff > 1:
        mod *= 5461 / 4096
    return mod


def damage(
    att: Fighter, mi: MoveInfo, dfn: Fighter | None, env: Env, *, spread: bool = False, tera: bool = False
) -> Hit:
    """Damage of ``mi`` used by ``att`` on ``dfn`` (``spread``: it hits more than one target,
    x0.75; ``tera``: as if ``att`` terastallized this turn)."""
    if dfn is None or not mi.exists:
        return _NO_HIT
    mtype = move_type(att, mi, env, tera)
    eff = effectiveness(mtype, dfn.types)
    if mi.category == 2:
        return Hit(0.0, 0.0, 0.0, eff, 1.0)
    if mtype == GROUND and dfn.grounded == 0.0 and not env.gravity:
        eff = 0.0
    if eff == 0:
        return Hit(0.0, 0.0, 0.0, 0.0, 1.0)
    physical = mi.category == 0
    if mi.bp_kind == "terablast" and (att.terastallized or tera):
        physical = _boosted(att.atk, att.boosts, "atk") > _boosted(att.spa, att.boosts, "spa")
    f_min, f_max, f_exp = _defender_factors(dfn, mi, mtype, eff, physical)
    if f_max == 0:
        return Hit(0.0, 0.0, 0.0, 0.0, 1.0)
    acc = _accuracy(att, mi, dfn, env)
    if mi.fixed:
        d = min(_fixed_damage(att, mi.fixed, dfn), dfn.hp)
        return Hit(d * (f_min > 0), d, d * acc * (f_exp > 0), eff, 1.0)
    bp_lo, bp_hi = _bp(att, mi, dfn, env)
    if bp_hi <= 0:
        return Hit(0.0, 0.0, 0.0, eff, 1.0)
    a, d = _attack_defence(att, mi, dfn, env, physical)
    k = (2 * att.level // 5 + 2) * a / max(d, 1.0)
    base_lo = math.floor(math.floor(k * bp_lo) / 50) + 2
    base_hi = math.floor(math.floor(k * bp_hi) / 50) + 2 if bp_hi != bp_lo else base_lo
    stab = stab_of(att, mtype, tera)
    mod = (0.75 if spread else 1.0) * _modifier(att, mi, dfn, env, mtype, eff, physical, bp_hi) * stab * eff
    lo = base_lo * 0.85 * mod * f_min * mi.hits_min
    hi = base_hi * mod * f_max * mi.hits_max
    exp = 0.5 * (base_lo + base_hi) * 0.925 * mod * f_exp * mi.hits_exp * acc
    return Hit(lo, hi, exp, eff, stab)
