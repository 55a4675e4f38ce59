"""Pokemon knowledge, in one place: the type chart, each move's static description from
Showdown's dex, level-50 stat estimates; the damage formula and speed estimates built on
them are league/battle/damage.py.

The observation encoder (league/battle/obs.py, per-action features) and the
``maxdamage`` baseline (league/players/maxdamage.py) both read their numbers from here.

An opponent's stats are estimated at its level (50 in VGC) from base stats with 31 IVs,
84 EVs in every stat and a neutral nature (the even spread; ``OPP_EV``), its speed as a
range from 0 EVs neutral to 252 EVs with a +Spe nature.

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
speed from 0 points neutral to 32 points +Spe.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from poke_env.battle import PokemonType
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
