"""Pokemon knowledge, in one place: the type chart, each move's static description from
Showdown's dex, level-50 stat estimates, a damage formula and speed estimates.

The observation encoder (league/battle/obs.py, per-action features) and the
``maxdamage`` baseline (league/players/maxdamage.py) both read their numbers from here.

Damage (Gen 5+ formula, as Showdown's ``sim/battle-actions.ts`` computes it, in floats):

    base = floor(floor(floor(2 L / 5 + 2) * BP * A / D) / 50) + 2
    dmg  = base * spread(0.75) * weather * roll(0.85..1) * STAB * type * burn * other

with A, D the attacker's attacking and the defender's defending stat after boosts,
items and abilities. Our own stats are the request's real ones; an opponent's are
estimated at its level (50 in VGC) from base stats with 31 IVs, 84 EVs in every stat
and a neutral nature (the even spread; ``OPP_EV``), its speed as a range from 0 EVs
neutral to 252 EVs with a +Spe nature. Known or certain abilities and items apply;
an opponent's ability that is only possible (several candidates) counts fully in the
minimum, not at all in the maximum, and by its share of the candidates in the
expectation. Not modelled: critical hits, Helping Hand, Friend Guard, protection this
turn, abilities and items outside the short lists below.

Two games' data (:class:`Mechanics`, chosen by the battle's format: :func:`mechanics_of`):
Scarlet/Violet formats (``SV``) read poke-env's gen 9 tables; Pokemon Champions formats
(``gen9champions*``, Showdown's ``champions`` mods) read dex_champions.json, generated
from Showdown's own mod data by ``python -m tools.gen_dex`` (its moves' changed power,
accuracy, PP and flags, its mega stones and mega formes). Champions stats come from
stat points, not EVs (mods/champions/scripts.ts ``statModify``; at most 32 per stat,
66 in all, IVs 31, any level):

    hp    = base + sp + 75
    other = floor((base + sp + 20) * nature)        nature 1.1, 1 or 0.9

so an opponent is estimated with the even spread (11 points a stat, ``OPP_SP``), its
speed from 0 points neutral to 32 points +Spe. A Pokemon that can Mega Evolve this turn
is also seen as its mega forme (:func:`mega_fighter`: the forme's base stats with the
same stat points and nature, read back from our real stats; its types and ability).
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from poke_env.battle import Field, PokemonType, SideCondition, Status, Weather
from poke_env.data import GenData, to_id_str

_GEN = GenData.from_gen(9)

# ---------------------------------------------------------------- type chart
TYPE_NAMES = sorted(_GEN.type_chart)  # 18 real types, alphabetical (the chart's keys)
N_TYPES = len(TYPE_NAMES)
TYPE_INDEX = {n: i for i, n in enumerate(TYPE_NAMES)}
# CHART[attacking][defending]: the multiplier (poke-env's chart is indexed defender first).
CHART: tuple[tuple[float, ...], ...] = tuple(
    tuple(float(_GEN.type_chart[d][a]) for d in TYPE_NAMES) for a in TYPE_NAMES
)
CHART_NP = np.asarray(CHART, dtype=np.float32)


_PT_INDEX = {pt: TYPE_INDEX.get(pt.name, -1) for pt in PokemonType}


def type_index(t: PokemonType | str | None) -> int:
    """Index 0..17 of a real type, -1 for none, ??? or Stellar."""
    if t is None:
        return -1
    i = _PT_INDEX.get(t)  # type: ignore[call-overload]
    if i is not None:
        return i
    return TYPE_INDEX.get(str(t).upper(), -1)


# ---------------------------------------------------------------- which game's data
class Mechanics:
    """One game's data: move and species tables (Showdown's field names), mega stones,
    and its stat formula. Compared by identity (it keys the lru caches below)."""

    def __init__(self, name: str, moves: dict, pokedex: dict, megastones: dict[str, dict[str, str]], stat_points: bool):
        self.name = name
        self.moves = moves
        self.pokedex = pokedex
        self.stat_points = stat_points  # Champions: stat points (hp = base + sp + 75); else EVs
        # stone id -> {species id: mega species id} (Charizardite Y: {"charizard": "charizardmegay"})
        self.megastones = {
            stone: {to_id_str(b): to_id_str(m) for b, m in by.items()} for stone, by in megastones.items()
        }

    def __repr__(self) -> str:
        return f"Mechanics({self.name})"

    def mega_species(self, species: str, item: str | None) -> str | None:
        """The mega forme ``species`` becomes holding ``item`` (ids), None if it cannot."""
        by = self.megastones.get(item or "")
        return by.get(species) if by else None

    def is_mega(self, species: str) -> bool:
        """A mega forme of a format that has Mega Evolution (False in Scarlet/Violet)."""
        if not self.megastones:
            return False
        return str((self.pokedex.get(species) or {}).get("forme", "")).startswith("Mega")


SV = Mechanics("sv", _GEN.moves, _GEN.pokedex, {}, stat_points=False)  # Scarlet/Violet: poke-env's gen 9 data
CHAMPIONS_DEX = Path(__file__).with_name("dex_champions.json")
CHAMPIONS_PREFIX = "gen9champions"  # Showdown's ids of every format on a champions mod (formats.py checks it)


@lru_cache(maxsize=1)
def champions() -> Mechanics:
    """Pokemon Champions (Showdown's ``champions`` mod; ``championsregma`` has the same
    tables): dex_champions.json, written by ``python -m tools.gen_dex``."""
    data = json.loads(CHAMPIONS_DEX.read_text())
    t = data["mods"]["champions"]
    return Mechanics("champions", t["moves"], t["pokedex"], t["megastones"], stat_points=True)


def mechanics_of(format_id: str | None) -> Mechanics:
    """The data a format plays with (poke-env's ``battle.format``: Showdown's id, read from
    the battle's ``|tier|``); Scarlet/Violet when unknown."""
    if format_id and format_id.startswith(CHAMPIONS_PREFIX):
        return champions()
    return SV


# The data families by name (Mechanics.name): what a network's checkpoint records it was
# trained on (league/model/net.py), and how an error names it.
DATA_NAMES = {"sv": "Scarlet/Violet", "champions": "Pokemon Champions"}


def data_of(format_id: str | None) -> str:
    """The data family a format plays with: "sv" or "champions"."""
    return mechanics_of(format_id).name


def mechanics_named(data: str) -> Mechanics:
    """The Mechanics of a data family ("sv", "champions")."""
    if data not in DATA_NAMES:
        raise ValueError(f"unknown game data {data!r}: one of {', '.join(DATA_NAMES)}")
    return champions() if data == "champions" else SV


@lru_cache(maxsize=4096)
def max_pp(move_id: str, mech: Mechanics = SV) -> int:
    """PP with all PP Ups (what Showdown gives in VGC; Champions: ``calculatePP``)."""
    e = mech.moves.get(move_id)
    pp = e.get("pp", 1) if e else 1
    if mech.stat_points:
        return pp if e and e.get("noPPBoosts") else max(1, int((pp / 5 + 1) * 4))
    return max(1, pp * 8 // 5)


def effectiveness(att_type: int, def_types: tuple[int, ...]) -> float:
    """Type multiplier of an attacking type on a defender's types (product over them)."""
    if att_type < 0:
        return 1.0
    row = CHART[att_type]
    m = 1.0
    for d in def_types:
        if d >= 0:
            m *= row[d]
    return m


# ---------------------------------------------------------------- moves
TARGET_CLASSES = [
    "single",
    "spread_foes",
    "all_adjacent",
    "ally",
    "ally_or_self",
    "self",
    "ally_side",
    "foe_side",
    "field",
    "random_foe",
]
_TARGET_CLASS = {
    "normal": "single",
    "any": "single",
    "adjacentFoe": "single",
    "allAdjacentFoes": "spread_foes",
    "allAdjacent": "all_adjacent",
    "adjacentAlly": "ally",
    "adjacentAllyOrSelf": "ally_or_self",
    "self": "self",
    "allySide": "ally_side",
    "allies": "ally_side",
    "allyTeam": "ally_side",
    "foeSide": "foe_side",
    "all": "field",
    "randomNormal": "random_foe",
    "scripted": "random_foe",
}
SPREAD_TARGETS = frozenset({"allAdjacentFoes", "allAdjacent"})

_PROTECT_LIKE = {
    "protect",
    "detect",
    "spikyshield",
    "kingsshield",
    "banefulbunker",
    "silktrap",
    "burningbulwark",
    "obstruct",
    "maxguard",
    "wideguard",
    "quickguard",
    "craftyshield",
    "matblock",
    "endure",
}
_SPEED_CONTROL = {
    "tailwind",
    "trickroom",
    "icywind",
    "electroweb",
    "bulldoze",
    "thunderwave",
    "scaryface",
    "stickyweb",
    "glare",
    "stunspore",
    "nuzzle",
    "rocktomb",
    "lowsweep",
    "mudshot",
    "pounce",
    "cottonspore",
    "stringshot",
    "syrupbomb",
    "zapcannon",
    "bodyslam",
}
_REDIRECTION = {"followme", "ragepowder", "spotlight", "allyswitch"}
_FAKE_OUT = {"fakeout", "firstimpression", "matblock"}
_WEATHER_SET = {"sunnyday", "raindance", "sandstorm", "snowscape", "hail", "chillyreception"}
_TERRAIN_SET = {"electricterrain", "grassyterrain", "psychicterrain", "mistyterrain"}
_SCREEN_SET = {"reflect", "lightscreen", "auroraveil"}
_DISRUPT = {
    "taunt",
    "encore",
    "disable",
    "torment",
    "imprison",
    "quash",
    "haze",
    "clearsmog",
    "roar",
    "whirlwind",
    "dragontail",
    "circlethrow",
    "knockoff",
    "trick",
    "switcheroo",
    "snarl",
    "partingshot",
    "willowisp",
    "spore",
    "sleeppowder",
    "yawn",
    "hypnosis",
    "perishsong",
}
_SELF_KO = {"explosion", "selfdestruct", "finalgambit", "memento", "healingwish", "lunardance", "mistyexplosion"}
_OHKO = {"fissure", "sheercold", "horndrill", "guillotine"}
_HALF_HP = {"superfang", "ruination", "naturesmadness"}

# Moves whose power the dex gives as 0 or a callback: how we compute it (``_bp``).
_BP_KIND = {
    "lowkick": "weight",
    "grassknot": "weight",
    "heavyslam": "weight_ratio",
    "heatcrash": "weight_ratio",
    "eruption": "user_hp",
    "waterspout": "user_hp",
    "dragonenergy": "user_hp",
    "acrobatics": "acrobatics",
    "facade": "facade",
    "hex": "hex",
    "weatherball": "weatherball",
    "terablast": "terablast",
    "gyroball": "gyroball",
    "electroball": "electroball",
    "storedpower": "storedpower",
    "powertrip": "storedpower",
    "lastrespects": "lastrespects",
    "ragefist": "ragefist",
    "expandingforce": "expandingforce",
    "knockoff": "knockoff",
    "collisioncourse": "collision",
    "electrodrift": "collision",
    "venoshock": "venoshock",
    "brine": "brine",
    "assurance": "flat",
    "avalanche": "flat",
    "payback": "flat",
    "boltbeak": "flat",
    "fishiousrend": "flat",
    "risingvoltage": "flat",
    "psyblade": "psyblade",
    "temperflare": "flat",
    "ragingbull": "flat",
    "tripleaxel": "tripleaxel",
    "populationbomb": "flat",
    "beatup": "beatup",
    "hardpress": "hardpress",
    "crushgrip": "hardpress",
    "wringout": "hardpress",
    "reversal": "reversal",
    "flail": "reversal",
    "punishment": "flat",
}


@dataclass(frozen=True, slots=True)
class MoveInfo:
    """What the damage formula and the features need of one move (from Showdown's dex)."""

    id: str
    type: int  # 0..17, -1 unknown
    category: int  # 0 physical, 1 special, 2 status
    bp: float
    accuracy: float  # 0..1 (1 for never-miss)
    never_miss: bool
    priority: int
    target: str  # Showdown target type
    hits_min: int
    hits_max: int
    hits_exp: float
    fixed: str  # "", "level", "half", "ohko", "user_hp", "endeavor", "counter"
    bp_kind: str  # "" or a key of _BP_KIND's values
    contact: bool
    sound: bool
    punch: bool
    bite: bool
    slicing: bool
    bullet: bool
    wind: bool
    pulse: bool
    has_secondary: bool
    uses_def: bool  # Body Press: the user's Defense
    uses_target_atk: bool  # Foul Play: the target's Attack
    special_vs_def: bool  # Psyshock and kin: special, against Defense
    exists: bool


_UNKNOWN_MOVE = MoveInfo("", -1, 2, 0.0, 1.0, True, 0, "normal", 1, 1, 1.0, "", "", *([False] * 12), False)


def _hits(entry: dict, move_id: str) -> tuple[int, int, float]:
    mh = entry.get("multihit")
    if mh is None:
        return 1, 1, 1.0
    if isinstance(mh, list):
        lo, hi = int(mh[0]), int(mh[1])
        if (lo, hi) == (2, 5):  # 2,3 at 35 % each, 4,5 at 15 %
            return 2, 5, 3.1
        return lo, hi, (lo + hi) / 2
    n = int(mh)
    if move_id == "populationbomb":  # each hit rolls accuracy (90 %): ~ 10 hits only with Wide Lens / Loaded Dice
        return 1, 10, 6.0
    return n, n, float(n)


@lru_cache(maxsize=4096)
def move_info(move_id: str, mech: Mechanics = SV) -> MoveInfo:
    e = mech.moves.get(move_id)
    if e is None:
        if move_id.startswith("hiddenpower"):
            e = mech.moves.get("hiddenpower")
        if e is None:
            return _UNKNOWN_MOVE
    flags = e.get("flags", {})
    acc = e.get("accuracy", True)
    cat = {"Physical": 0, "Special": 1}.get(e.get("category"), 2)
    lo, hi, ex = _hits(e, move_id)
    dmg = e.get("damage")
    if dmg == "level":
        fixed = "level"
    elif move_id in _HALF_HP:
        fixed = "half"
    elif move_id in _OHKO:
        fixed = "ohko"
    elif move_id == "finalgambit":
        fixed = "user_hp"
    elif move_id == "endeavor":
        fixed = "endeavor"
    elif move_id in ("counter", "mirrorcoat", "metalburst", "comeuppance", "bide"):
        fixed = "counter"
    else:
        fixed = ""
    sec = e.get("secondary") or e.get("secondaries")
    return MoveInfo(
        id=move_id,
        type=type_index(e.get("type")),
        category=cat,
        bp=float(e.get("basePower") or 0),
        accuracy=1.0 if acc is True else float(acc) / 100.0,
        never_miss=acc is True,
        priority=int(e.get("priority", 0)),
        target=e.get("target", "normal"),
        hits_min=lo,
        hits_max=hi,
        hits_exp=ex,
        fixed=fixed,
        bp_kind=_BP_KIND.get(move_id, ""),
        contact="contact" in flags,
        sound="sound" in flags,
        punch="punch" in flags,
        bite="bite" in flags,
        slicing="slicing" in flags,
        bullet="bullet" in flags,
        wind="wind" in flags,
        pulse="pulse" in flags,
        has_secondary=bool(sec),
        uses_def=move_id == "bodypress",
        uses_target_atk=move_id == "foulplay",
        special_vs_def=move_id in ("psyshock", "psystrike", "secretsword"),
        exists=True,
    )


def _boost_sum(d: dict | None) -> tuple[int, int]:
    if not d:
        return 0, 0
    return sum(v for v in d.values() if v > 0), sum(v for v in d.values() if v < 0)


MOVE_STATIC_FEATURES: list[str] = (
    [f"type_{t.lower()}" for t in TYPE_NAMES]
    + ["physical", "special", "status", "base_power", "variable_power", "accuracy", "never_miss", "priority"]
    + [f"target_{c}" for c in TARGET_CLASSES]
    + [
        "protect_like",
        "spread",
        "hits_ally",
        "contact",
        "sound",
        "punch",
        "bite",
        "slicing",
        "bullet",
        "wind",
        "pulse",
        "powder",
        "inflicts_status",
        "confuses",
        "flinch",
        "recoil",
        "drain",
        "heal",
        "self_boost_up",
        "self_boost_down",
        "target_boost_down",
        "target_boost_up",
        "speed_control",
        "fake_out",
        "redirection",
        "switch_out",
        "multi_hit",
        "fixed_damage",
        "ohko",
        "two_turn",
        "recharge",
        "high_crit",
        "self_ko",
        "weather",
        "terrain",
        "screen",
        "helping_hand",
        "disrupt",
        "secondary",
        "pp",
    ]
)
MOVE_STATIC_F = len(MOVE_STATIC_FEATURES)
_MSF = {n: i for i, n in enumerate(MOVE_STATIC_FEATURES)}


def move_static_row(move_id: str, mech: Mechanics = SV) -> np.ndarray:
    """The static feature row of one move (zeros for unknown ids)."""
    row = np.zeros(MOVE_STATIC_F, dtype=np.float32)
    e = mech.moves.get(move_id)
    if e is None:
        return row
    mi = move_info(move_id, mech)
    flags = e.get("flags", {})
    f = lambda name, v=1.0: row.__setitem__(_MSF[name], float(v))  # noqa: E731
    if mi.type >= 0:
        row[mi.type] = 1.0
    f(("physical", "special", "status")[mi.category])
    f("base_power", mi.bp / 100.0)
    f("variable_power", bool(mi.bp_kind) or (mi.category < 2 and mi.bp == 0))
    f("accuracy", mi.accuracy)
    f("never_miss", mi.never_miss)
    f("priority", mi.priority / 5.0)
    f("target_" + _TARGET_CLASS.get(mi.target, "single"))
    f("protect_like", move_id in _PROTECT_LIKE or bool(e.get("stallingMove")))
    f("spread", mi.target in SPREAD_TARGETS)
    f("hits_ally", mi.target == "allAdjacent")
    for k in ("contact", "sound", "punch", "bite", "slicing", "bullet", "wind", "pulse", "powder"):
        f(k, k in flags)
    secs = e.get("secondaries") or ([e["secondary"]] if e.get("secondary") else [])
    f("inflicts_status", bool(e.get("status")) or any(s.get("status") for s in secs))
    f("confuses", e.get("volatileStatus") == "confusion" or any(s.get("volatileStatus") == "confusion" for s in secs))
    f("flinch", any(s.get("volatileStatus") == "flinch" for s in secs))
    f("recoil", bool(e.get("recoil")) or bool(e.get("mindBlownRecoil")) or move_id in ("struggle",))
    f("drain", bool(e.get("drain")))
    f("heal", bool(e.get("heal")) or "heal" in flags)
    own = (e.get("self") or {}).get("boosts") or (
        e.get("boosts") if e.get("target") in ("self", "allySide", "allies") else None
    )
    up, down = _boost_sum(own)
    for s in secs:
        u2, d2 = _boost_sum((s.get("self") or {}).get("boosts"))
        up, down = up + u2, down + d2
    f("self_boost_up", min(up, 4) / 4.0)
    f("self_boost_down", min(-down, 4) / 4.0)
    tgt = e.get("boosts") if e.get("target") not in ("self", "allySide", "allies") else None
    tu, td = _boost_sum(tgt)
    for s in secs:
        u2, d2 = _boost_sum(s.get("boosts"))
        tu, td = tu + u2, td + d2
    f("target_boost_down", min(-td, 4) / 4.0)
    f("target_boost_up", min(tu, 4) / 4.0)
    f("speed_control", move_id in _SPEED_CONTROL)
    f("fake_out", move_id in _FAKE_OUT)
    f("redirection", move_id in _REDIRECTION)
    f("switch_out", bool(e.get("selfSwitch")))
    f("multi_hit", mi.hits_max > 1)
    f("fixed_damage", mi.fixed in ("level", "half", "user_hp", "endeavor", "counter"))
    f("ohko", mi.fixed == "ohko")
    f("two_turn", "charge" in flags)
    f("recharge", "recharge" in flags)
    f("high_crit", bool(e.get("critRatio", 1) > 1 or e.get("willCrit")))
    f("self_ko", move_id in _SELF_KO or bool(e.get("selfdestruct")))
    f("weather", move_id in _WEATHER_SET)
    f("terrain", move_id in _TERRAIN_SET)
    f("screen", move_id in _SCREEN_SET)
    f("helping_hand", move_id in ("helpinghand", "coaching", "howl", "decorate", "instruct"))
    f("disrupt", move_id in _DISRUPT)
    f("secondary", bool(secs))
    f("pp", min(e.get("pp", 0), 40) / 40.0)
    return row


def move_static_table(vocab: list[str], mech: Mechanics = SV) -> np.ndarray:
    """[len(vocab), MOVE_STATIC_F]: one static row per move id of a vocabulary."""
    if not vocab:
        return np.zeros((0, MOVE_STATIC_F), np.float32)
    return np.stack([move_static_row(m, mech) for m in vocab])


# ---------------------------------------------------------------- stats
OPP_EV = 84  # the even spread (508 / 6) assumed for an opponent's stats
_BOOST_MULT = {i: (2 + i) / 2 if i >= 0 else 2 / (2 - i) for i in range(-6, 7)}
_ACC_MULT = {i: (3 + i) / 3 if i >= 0 else 3 / (3 - i) for i in range(-6, 7)}
STATS = ("hp", "atk", "def", "spa", "spd", "spe")


def stat_estimate(base: int, stat: str, level: int = 50, ev: int = OPP_EV, nature: float = 1.0) -> float:
    """A stat from its base value (31 IVs)."""
    core = (2 * base + 31 + ev // 4) * level // 100
    if stat == "hp":
        return float(core + level + 10)
    return float(math.floor((core + 5) * nature))


OPP_SP = 11  # Champions: the even spread of stat points (66 / 6)
MAX_SP, TOTAL_SP = 32, 66  # Champions: stat points per stat, in all (Showdown's validator)
_NATURE = {1: 110, 0: 100, -1: 90}  # Showdown: floor(floor(stat * 110) / 100)


def champions_stat(base: int, stat: str, sp: int, nature: int = 0) -> int:
    """A Champions stat (mods/champions/scripts.ts ``statModify``, no Level Clause Mod):
    ``nature`` +1 for the nature's raised stat, -1 for its lowered one."""
    if stat == "hp":
        return base + sp + 75
    return (base + sp + 20) * _NATURE[nature] // 100


def _sp_for(base: int, value: int, nature: int) -> int | None:
    """The stat points that give ``value`` with ``nature`` (the fewest), None if none do."""
    for sp in range(MAX_SP + 1):
        if champions_stat(base, "atk", sp, nature) == value:
            return sp
    return None


@lru_cache(maxsize=4096)
def champions_spread(base: tuple[int, ...], stats: tuple[int, ...]) -> tuple[tuple[int, ...], int, int]:
    """Stat points and nature read back from real stats (hp, atk, def, spa, spd, spe),
    both in STATS order: (points, raised stat index, lowered index; 0, 0 when neutral).
    Among the natures that fit every stat, the one whose points come closest to the 66
    a player has (most spend them all), then neutral first. Stats no nature fits (a
    wrong base) fall back to points clipped from the neutral reading."""
    hp_sp = min(max(stats[0] - base[0] - 75, 0), MAX_SP)
    best: tuple[int, tuple[int, ...], int, int] | None = None
    options = [(0, 0)] + [(p, m) for p in range(1, 6) for m in range(1, 6) if p != m]
    for p, m in options:
        sps = [hp_sp]
        for i in range(1, 6):
            sp = _sp_for(base[i], stats[i], 1 if i == p else (-1 if i == m else 0))
            if sp is None:
                break
            sps.append(sp)
        else:
            total = sum(sps)
            if total <= TOTAL_SP and (best is None or total > best[0]):
                best = (total, tuple(sps), p, m)
    if best is None:
        return tuple([hp_sp] + [min(max(stats[i] - base[i] - 20, 0), MAX_SP) for i in range(1, 6)]), 0, 0
    return best[1], best[2], best[3]


@lru_cache(maxsize=8192)
def _estimates(species: str, level: int, mech: Mechanics = SV) -> tuple[float, ...]:
    """hp, atk, def, spa, spd, spe (spe: the even spread), spe_min, spe_max, weight (kg)."""
    e = mech.pokedex.get(species) or {}
    b = e.get("baseStats") or {s: 80 for s in STATS}
    if mech.stat_points:
        est = [float(champions_stat(b[s], s, OPP_SP)) for s in STATS]
        est.append(float(champions_stat(b["spe"], "spe", 0)))
        est.append(float(champions_stat(b["spe"], "spe", MAX_SP, 1)))
    else:
        est = [stat_estimate(b[s], s, level) for s in STATS]
        est.append(stat_estimate(b["spe"], "spe", level, ev=0))
        est.append(stat_estimate(b["spe"], "spe", level, ev=252, nature=1.1))
    est.append(float(e.get("weightkg", 50.0)))
    return tuple(est)


def estimated_stats(species: str, level: int = 50, mech: Mechanics = SV) -> tuple[float, ...]:
    """hp, atk, def, spa, spd, spe of a Pokemon whose spread is unknown: the even spread
    (``OPP_EV`` EVs, or ``OPP_SP`` stat points in Champions), neutral nature."""
    return _estimates(species, level, mech)[:6]


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


# ---------------------------------------------------------------- the battle's state, as the formula needs it
@dataclass(slots=True)
class Env:
    """Field state of one decision."""

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


def env_of(battle) -> Env:
    w = battle.weather
    f = battle.fields
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


_FLYING, _GROUND, _FIRE, _WATER, _ELECTRIC, _GRASS, _PSYCHIC, _DRAGON, _ICE, _ROCK, _GHOST, _STEEL = (
    TYPE_INDEX[t]
    for t in (
        "FLYING",
        "GROUND",
        "FIRE",
        "WATER",
        "ELECTRIC",
        "GRASS",
        "PSYCHIC",
        "DRAGON",
        "ICE",
        "ROCK",
        "GHOST",
        "STEEL",
    )
)


def fighter(mon, own: bool, side_conditions: dict, fainted_allies: int = 0, mech: Mechanics = SV) -> Fighter:
    species = mon.species
    level = mon.level or 50
    est = _estimates(species, level, mech)
    stats = mon.stats if own else None
    if stats and stats.get("atk"):
        g = stats.get
        atk, def_, spa, spd, spe = (
            float(g("atk") or est[1]),
            float(g("def") or est[2]),
            float(g("spa") or est[3]),
            float(g("spd") or est[4]),
            float(g("spe") or est[5]),
        )
        max_hp = float(mon.max_hp or est[0])
        hp = float(mon.current_hp or 0)
        spe_min = spe_max = spe
    else:
        atk, def_, spa, spd, spe = est[1:6]
        max_hp = est[0]
        hp = mon.current_hp_fraction * max_hp
        spe_min, spe_max = est[6], est[7]
    ab = mon.ability
    if ab:
        abilities = (ab,)
    else:
        abilities = tuple(mon.possible_abilities or ())
        ab = abilities[0] if len(abilities) == 1 else ""
    item = mon.item
    item = "?" if item in (None, "unknown_item") and not own else (item or "")
    pti = _PT_INDEX
    types = tuple(pti.get(t, -1) for t in mon.types if t is not None)
    base_types = tuple(pti.get(t, -1) for t in mon.base_types if t is not None)
    tera = pti.get(mon.tera_type, -1) if mon.tera_type is not None else -1
    grounded = _grounded(types, ab, abilities, item)
    return Fighter(
        own,
        species,
        types,
        base_types,
        tera,
        bool(mon.is_terastallized),
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
        mon.boosts,
        ab,
        abilities,
        item,
        mon.status,
        est[8],
        grounded,
        SideCondition.REFLECT in side_conditions,
        SideCondition.LIGHT_SCREEN in side_conditions,
        SideCondition.AURORA_VEIL in side_conditions,
        SideCondition.TAILWIND in side_conditions,
        bool(mon.first_turn),
        fainted_allies,
        hp / max_hp if max_hp > 0 else 0.0,
    )


_LEVITATING = frozenset({"levitate", "eelevate"})


def _grounded(types: tuple[int, ...], ab: str, abilities: tuple[str, ...], item: str) -> float:
    """1 grounded, 0 not (Flying, Air Balloon, a known Levitate), 0.5 when Levitate is possible."""
    lev = not _LEVITATING.isdisjoint(abilities)
    return 0.0 if _FLYING in types or item == "airballoon" or (lev and ab) else (0.5 if lev else 1.0)


def mega_fighter(f: Fighter, mech: Mechanics) -> Fighter | None:
    """``f`` as the mega forme its item makes of it (Mega Evolution happens before anyone
    moves, so the turn's speed and damage are the forme's), None when it has none. Our
    own forme's stats keep the stat points and nature read back from our real stats
    (:func:`champions_spread`); an opponent's are estimated as any opponent's."""
    mega = mech.mega_species(f.species, f.item)
    e = mech.pokedex.get(mega or "")
    base = (mech.pokedex.get(f.species) or {}).get("baseStats")
    if e is None or base is None:
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
        est = _estimates(mega, f.level, mech)
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
        s *= _BOOST_MULT[max(-6, min(6, b))]
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
    elif a == "galewings" and mi.type == _FLYING and me.hp >= me.max_hp:
        p += 1
    elif a == "triage" and mi.id in _TRIAGE:
        p += 3
    return p


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
            return _FIRE
        if env.rain:
            return _WATER
        if env.sand:
            return _ROCK
        if env.snow:
            return _ICE
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

        def p(s: float) -> float:
            r = me / max(s, 1.0)
            return 150.0 if r >= 4 else 120.0 if r >= 3 else 80.0 if r >= 2 else 60.0 if r >= 1 else 40.0

        return p(effective_speed(dfn, env, "max")), p(effective_speed(dfn, env, "min"))
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
    return stat * _BOOST_MULT[max(-6, min(6, b))] if b else stat


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
        acc = acc * _ACC_MULT[max(-6, min(6, ab))] / _ACC_MULT[max(-6, min(6, eb))]
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
    """The attacking and defending stats after boosts, weather, items, abilities and ruin."""
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
        if env.snow and _ICE in dfn.types:
            d *= 1.5
        if aa == "swordofruin":
            d *= 0.75
    else:
        d = _boosted(dfn.spd, dboosts, "spd")
        if env.sand and _ROCK in dfn.types:
            d *= 1.5
        if dfn.item == "assaultvest":
            d *= 1.5
        if aa == "beadsofruin":
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
        if da == "tabletsofruin":
            a *= 0.75
    else:
        if att.item == "choicespecs":
            a *= 1.5
        if da == "vesselofruin":
            a *= 0.75
    return a, d


def _modifier(
    att: Fighter, mi: MoveInfo, dfn: Fighter, env: Env, mtype: int, eff: float, physical: bool, bp_hi: float
) -> float:
    """The final damage modifier without STAB and effectiveness: weather, terrain, burn,
    screens, the attacker's ability and item."""
    mod = 1.0
    if env.sun or att.ability == "megasol":  # Mega Sol (Champions): its moves act as in sun
        mod *= 1.5 if mtype == _FIRE else (0.5 if mtype == _WATER else 1.0)
    elif env.rain:
        mod *= 1.5 if mtype == _WATER else (0.5 if mtype == _FIRE else 1.0)
    if att.grounded == 1.0 and (
        (env.electric and mtype == _ELECTRIC) or (env.grassy and mtype == _GRASS) or (env.psychic and mtype == _PSYCHIC)
    ):
        mod *= 1.3
    if dfn.grounded == 1.0:
        if env.misty and mtype == _DRAGON:
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
    if mtype == _GROUND and dfn.grounded == 0.0 and not env.gravity:
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
