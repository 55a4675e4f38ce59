"""Pokemon knowledge: the type chart, the game data a format plays with,
level-50 stat estimates; each move's static description is league/battle/moves.py, the
damage formula and speed estimates built on them are league/battle/damage.py.

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


PT_INDEX = {pt: TYPE_INDEX.get(pt.name, -1) for pt in PokemonType}
# the same keyed by the member's value (an int): a dict keyed by the enum hashes it by
# Enum.__hash__, a Python function (~0.2 us a lookup, ~100 lookups a decision)
PT_BY_VALUE = {pt._value_: TYPE_INDEX.get(pt.name, -1) for pt in PokemonType}


def type_index(t: PokemonType | str | None) -> int:
    """Index 0..17 of a real type, -1 for none, ??? or Stellar."""
    if t is None:
        return -1
    if isinstance(t, PokemonType):
        return PT_BY_VALUE[t._value_]
    return TYPE_INDEX.get(str(t).upper(), -1)


FLYING, GROUND, FIRE, WATER, ELECTRIC, GRASS, PSYCHIC, DRAGON, ICE, ROCK, _GHOST, _STEEL = (
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
    and its stat formula. Compared by identity (it keys the lru caches here and in moves.py)."""

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


# ---------------------------------------------------------------- stats
OPP_EV = 84  # the even spread (508 / 6) assumed for an opponent's stats
BOOST_MULT = {i: (2 + i) / 2 if i >= 0 else 2 / (2 - i) for i in range(-6, 7)}
ACC_MULT = {i: (3 + i) / 3 if i >= 0 else 3 / (3 - i) for i in range(-6, 7)}
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
def species_estimates(species: str, level: int, mech: Mechanics = SV) -> tuple[float, ...]:
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
    return species_estimates(species, level, mech)[:6]
