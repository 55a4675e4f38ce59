"""Each move's static description, from the dex of the game a battle plays
(league/battle/dex.py :class:`Mechanics`): :class:`MoveInfo` (what the damage formula,
league/battle/damage.py, needs of a move) and the static feature row the network reads
per move id (``MOVE_STATIC_FEATURES``: its type, category, power, accuracy, target class
and flags; league/model/net.py holds them as one table over the move vocabulary).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from league.battle.dex import SV, TYPE_NAMES, Mechanics, type_index

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


_UNKNOWN_MOVE = MoveInfo("", -1, 2, 0.0, 1.0, True, 0, "normal", 1, 1, 1.0, "", "", *(False,) * 12, False)


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
