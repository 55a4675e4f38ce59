"""Observation encoder: poke-env ``DoubleBattle`` + Showdown's request -> one fixed-size
float32 vector. The whole layout is defined here, once (``LAYOUT``); the model slices
by name. ``ENCODER_VERSION`` names this layout: checkpoints record it, and a network
trained on another layout is refused when loaded.

    ids        [12, 8]     integer ids stored as floats (exact below 2**11 in the BC data
                           set's float16), embedded by the model: species, item, ability,
                           move0..move3, tera type (vocabularies in vocab.json: 0 = none,
                           1 = unknown; no tera type in Champions formats)
    mons       [12, MON_F] per-Pokemon features (MON_FEATURES)
    mon_moves  [12, 4, MON_MOVE_F]  per move of each Pokemon, in its slot order: known,
                           PP left, STAB (MON_MOVE_FEATURES); the move's static description
                           (type, power, category, accuracy, priority, target class, flags)
                           is a table indexed by the move id (league/battle/moves.py:
                           MOVE_STATIC_FEATURES), looked up by the model
    field      [FIELD_F]   weather, terrain/pseudo-weather, both sides' conditions, turn,
                           phase flags, tera used, Pokemon left
    slots      [4]         row (0..11) of our slot a, our slot b, foe slot a, foe slot b;
                           12 when the slot is empty
    act_ids    [2, 4]      each of our active slots' request moves (the codec's move j)
    act_move   [2, 4, ACT_MOVE_F]           \\
    act_target [2, 4, 5, 2, ACT_TARGET_F]    > league/battle/analysis.py: what each
    switch     [4, SWITCH_F]                /  order of the turn would do
    threat     [2, 2, THREAT_F]  how hard each foe can hit each of our actives this turn
    sheets     [1]         1 when the foe's rows hold its open team sheet (a replay with
                           open sheets, parsed with --foe-sheets): its item, ability, moves
                           and tera type from team preview on, not only what play revealed

Rows 0..5 are ours: the four brought Pokemon in team-preview order (row k is switch
k), then the two left at home (at team preview: the six in team order). Rows 6..11 are
the opponent's six from team preview, in preview order, each joined with its in-battle
state once revealed. The opponent's rows say whether a Pokemon is active but not in
which slot (``slots`` says it): the network then treats the two foe positions alike.
Unknown values are 0 (ids: 1 = unknown where the thing exists but is hidden).

The "tera" features are the format's once-per-battle transformation: Terastallization
in Scarlet/Violet formats, Mega Evolution in Champions formats (``terastallized``: a
mega forme; ``own_used_tera`` / ``opp_used_tera``: a side has mega-evolved; the action
features' b = 1: mega-evolve with the move; the mega stone is the item id, the forme's
base stats and ability its species row). Species, moves and PP are the format's data
(league/battle/dex.py: ``mechanics_of(battle.format)``), so Reg C's observations are the
same numbers they always were.

Encoding is on the hot path (every decision): static per-species/per-move parts are
cached, everything is written into a preallocated buffer.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np
from poke_env.battle import Effect, Field, PokemonType, SideCondition, Status, Weather

from league.battle.analysis import (
    ACT_MOVE_F,
    ACT_TARGET_F,
    SWITCH_F,
    THREAT_F,
    TurnAnalysis,
    analyse_moves,
    analyse_switches,
    analyse_threats,
)
from league.battle.dex import PT_BY_VALUE, SV, Mechanics, max_pp, mechanics_of, type_index
from league.battle.fighter import effective_speed, hp_frac, known_moves, poke_types
from league.battle.moves import move_info, move_static_table
from league.battle.sheets import FoeSet, sheet_of

# 1: ids/mons/field only (moves pooled by the model); 2: + the per-action blocks;
# 3: + ``threat``, appended: a version-2 network reads a version-3 observation (its
# blocks are where they were) and is still loaded (READABLE_VERSIONS); 4: + ``sheets``,
# appended (0 in every battle without open team sheets: the numbers before it are
# version 3's); 5: the same layout, and with the foe's open sheet (``sheets`` 1) the turn
# analysis reads it too: the foes' ability, item and tera type in the damage and speed
# figures, their sheet's moves in ``threat`` and ``switch`` (without a sheet, version 4's
# numbers); 6: the same layout, and our own Pokemon's tera types read from the request
# (league.battle.context.read_tera_types) for a network with ``model.own_tera``: in their
# rows and their tera orders' figures (before, always none and the plain orders' figures)
ENCODER_VERSION = 6
READABLE_VERSIONS = (2, 3, 4, 5, 6)

N_MONS = 12
N_IDS = 8  # species, item, ability, move x4, tera type
ID_SPECIES, ID_ITEM, ID_ABILITY, ID_MOVE0, ID_TERA = 0, 1, 2, 3, 7
UNKNOWN_ID = 1  # species/item/ability/move id of something that exists but is hidden
EMPTY_ROW = N_MONS  # "no Pokemon" in ``slots``

_VOCAB_PATH = Path(__file__).with_name("vocab.json")
_VOCAB = json.loads(_VOCAB_PATH.read_text())
VOCAB_SIZES = {k: len(v) for k, v in _VOCAB.items() if isinstance(v, list)}
_INDEX = {k: {name: i for i, name in enumerate(v)} for k, v in _VOCAB.items() if isinstance(v, list)}


def move_static(mech: Mechanics = SV) -> np.ndarray:
    """[VOCAB_SIZES['moves'], MOVE_STATIC_F]: the static row of every move id, with the
    moves of ``mech`` (Scarlet/Violet by default; dex.champions() for Champions formats)."""
    return _move_static(mech)


@lru_cache(maxsize=2)
def _move_static(mech: Mechanics) -> np.ndarray:
    t = move_static_table(_VOCAB["moves"], mech)
    t.setflags(write=False)
    return t


TYPES = list(PokemonType)  # 20 incl. ??? and Stellar
# keyed by the members' values (ints), where the encoder looks them up a dozen times a
# Pokemon: a dict keyed by an enum hashes it by Enum.__hash__, a Python function
_TYPE_BY_VALUE = {t._value_: i for i, t in enumerate(TYPES)}
STATUSES = [Status.BRN, Status.FRZ, Status.PAR, Status.PSN, Status.SLP, Status.TOX]
_STATUS_BY_VALUE = {s._value_: i for i, s in enumerate(STATUSES)}
BOOSTS = ["atk", "def", "spa", "spd", "spe", "accuracy", "evasion"]
BASE_STATS = ["hp", "atk", "def", "spa", "spd", "spe"]
OWN_STATS = ["atk", "def", "spa", "spd", "spe"]
EFFECTS = [
    Effect.SUBSTITUTE,
    Effect.CONFUSION,
    Effect.TAUNT,
    Effect.ENCORE,
    Effect.LEECH_SEED,
    Effect.YAWN,
    Effect.DISABLE,
    Effect.HEAL_BLOCK,
    Effect.SALT_CURE,
    Effect.FOCUS_ENERGY,
    Effect.PERISH3,
    Effect.PERISH2,
    Effect.PERISH1,
    Effect.TORMENT,
    Effect.PROTOSYNTHESIS,
    Effect.QUARK_DRIVE,
]
_EFFECT_BY_VALUE = {e._value_: i for i, e in enumerate(EFFECTS)}
WEATHERS = list(Weather)
FIELDS = list(Field)
SIDE_CONDITIONS = list(SideCondition)
_STACKABLE = {SideCondition.SPIKES: 3.0, SideCondition.TOXIC_SPIKES: 2.0}

MON_FEATURES: list[str] = (
    ["present", "is_own", "hp_frac", "fainted", "active", "slot_a", "slot_b", "brought_or_revealed", "terastallized"]
    + ["status_none"]
    + [f"status_{s.name.lower()}" for s in STATUSES]
    + [f"boost_{b}" for b in BOOSTS]
    + [f"type_{t.name.lower()}" for t in TYPES]
    + [f"tera_{t.name.lower()}" for t in TYPES]
    + [f"base_{s}" for s in BASE_STATS]
    + ["first_turn", "protect_counter", "must_recharge", "preparing"]
    + [f"effect_{e.name.lower()}" for e in EFFECTS]
    + [f"stat_{s}" for s in OWN_STATS]
    + ["speed", "speed_rank", "moves_known"]
)
MON_F = len(MON_FEATURES)
_MF = {n: i for i, n in enumerate(MON_FEATURES)}
MON_MOVE_FEATURES = ["known", "pp_frac", "stab"]
MON_MOVE_F = len(MON_MOVE_FEATURES)

FIELD_FEATURES: list[str] = (
    [f"weather_{w.name.lower()}" for w in WEATHERS]
    + [f"field_{f.name.lower()}" for f in FIELDS]
    + [f"own_{c.name.lower()}" for c in SIDE_CONDITIONS]
    + [f"opp_{c.name.lower()}" for c in SIDE_CONDITIONS]
    + ["turn", "teampreview", "force_switch_a", "force_switch_b", "own_used_tera", "opp_used_tera"]
    + ["own_left", "opp_left"]
)
FIELD_F = len(FIELD_FEATURES)
_FF = {n: i for i, n in enumerate(FIELD_FEATURES)}

# Flat layout: name -> (start, stop, shape)
BLOCKS: tuple[tuple[str, tuple[int, ...]], ...] = (
    ("ids", (N_MONS, N_IDS)),
    ("mons", (N_MONS, MON_F)),
    ("mon_moves", (N_MONS, 4, MON_MOVE_F)),
    ("field", (FIELD_F,)),
    ("slots", (4,)),
    ("act_ids", (2, 4)),
    ("act_move", (2, 4, ACT_MOVE_F)),
    ("act_target", (2, 4, 5, 2, ACT_TARGET_F)),
    ("switch", (4, SWITCH_F)),
    ("threat", (2, 2, THREAT_F)),
    ("sheets", (1,)),
)
LAYOUT: dict[str, tuple[int, int, tuple[int, ...]]] = {}
_o = 0
for _name, _shape in BLOCKS:
    _n = int(np.prod(_shape))
    LAYOUT[_name] = (_o, _o + _n, _shape)
    _o += _n
OBS_DIM = _o


class _Array(Protocol):
    """An ndarray or a torch tensor, as ``split`` reads one."""

    @property
    def shape(self) -> tuple[int, ...]: ...

    def __getitem__(self, key: Any, /) -> Any: ...


ArrayT = TypeVar("ArrayT", bound=_Array)


def split(obs: ArrayT) -> dict[str, ArrayT]:
    """Views of a flat observation (or a batch [..., OBS_DIM]; an ndarray or a torch
    tensor, and the views are the same kind) by layout name."""
    lead = obs.shape[:-1]
    if not lead:  # one observation (every decision): plain slices, ~0.6x the general form's cost
        return {k: obs[a:b].reshape(shape) for k, (a, b, shape) in LAYOUT.items()}
    return {k: obs[..., a:b].reshape(*lead, *shape) for k, (a, b, shape) in LAYOUT.items()}


def vocab_id(table: str, name: str | None) -> int:
    if not name:
        return 0
    return _INDEX[table].get(name, 1)


@lru_cache(maxsize=4096)
def _species_static(species: str, mech: Mechanics = SV) -> tuple[int, np.ndarray]:
    """(species id, base stats / 200) for a species id."""
    entry = mech.pokedex.get(species)
    base = np.zeros(len(BASE_STATS), dtype=np.float32)
    if entry is not None:
        for i, s in enumerate(BASE_STATS):
            base[i] = entry["baseStats"][s] / 200.0
    return vocab_id("species", species), base


@lru_cache(maxsize=8192)
def move_vocab_id(move_id: str) -> int:
    return vocab_id("moves", move_id)


@lru_cache(maxsize=4096)
def _item_id(item: str | None) -> int:
    if item is None:
        return 0
    if item in ("unknown_item", ""):
        return 1 if item == "unknown_item" else 0
    return vocab_id("items", item)


@lru_cache(maxsize=4096)
def _ability_id(ability: str | None) -> int:
    return vocab_id("abilities", ability) if ability else 0


# Feature offsets, resolved once (the encoder runs at every decision).
_PRESENT, _IS_OWN, _HP, _FAINTED, _ACTIVE = (_MF[k] for k in ("present", "is_own", "hp_frac", "fainted", "active"))
_SLOT_A, _SEEN, _TERA_ON, _ST_NONE, _ST0 = (
    _MF[k] for k in ("slot_a", "brought_or_revealed", "terastallized", "status_none", "status_brn")
)
_BOOST0, _TYPE0, _TERA0, _BASE0 = (_MF[k] for k in ("boost_atk", "type_bug", "tera_bug", "base_hp"))
_FIRST, _PROT, _RECH, _PREP, _EFF0 = (
    _MF[k] for k in ("first_turn", "protect_counter", "must_recharge", "preparing", "effect_substitute")
)
_STAT0, _SPEED, _SPEED_RANK, _MOVES_KNOWN = (_MF[k] for k in ("stat_atk", "speed", "speed_rank", "moves_known"))


def _pp_frac(mv, mech: Mechanics) -> float:
    """PP left / max PP of a move poke-env tracks (it counts from its own gen 9 maximum:
    in Champions formats the PP used are taken from the format's maximum)."""
    if mech is SV:
        return min(1.0, mv._current_pp / max_pp(mv.id))
    full = max_pp(mv.id, mech)
    return max(0.0, min(1.0, (full - (_poke_env_max_pp(mv) - mv._current_pp)) / full))


_PE_MAX_PP: dict[tuple, int] = {}


def _poke_env_max_pp(mv) -> int:
    """poke-env's ``Move.max_pp`` (a data lookup each read), remembered by what it depends
    on: the move, the generation and whether it came from Transform."""
    key = (mv._id, mv._gen, mv._from_transform)
    pp = _PE_MAX_PP.get(key)
    if pp is None:
        pp = _PE_MAX_PP[key] = mv.max_pp
    return pp


_BOOST_INDEX = {b: _BOOST0 + i for i, b in enumerate(BOOSTS)}


@lru_cache(maxsize=8192)
def _mon_static(
    species: str, types: tuple[int, ...], tera: int, own: bool, tera_on: bool, mech: Mechanics
) -> tuple[int, int, np.ndarray]:
    """(species id, tera id, the feature row's part fixed by these arguments: present,
    is_own, terastallized, types, tera type, base stats) of one Pokemon. ``types`` and
    ``tera`` are PokemonType values (``_value_``; ``tera`` 0 for none), so the cache's
    key hashes ints."""
    sid, base = _species_static(species, mech)
    row = np.zeros(MON_F, dtype=np.float32)
    tid = 0
    if tera:
        tid = _TYPE_BY_VALUE[tera] + 1
        row[_TERA0 + _TYPE_BY_VALUE[tera]] = 1.0
    row[_PRESENT] = 1.0
    row[_IS_OWN] = float(own)
    row[_TERA_ON] = float(tera_on or mech.is_mega(species))
    for t in types:
        row[_TYPE0 + _TYPE_BY_VALUE[t]] = 1.0
    row[_BASE0 : _BASE0 + 6] = base
    row.setflags(write=False)
    return sid, tid, row


@lru_cache(maxsize=16384)
def _moveset(
    move_ids: tuple[str, ...], types: tuple[int, ...], mech: Mechanics
) -> tuple[tuple[int, ...], np.ndarray, tuple[int, ...]]:
    """(vocab ids, move rows [n, MON_MOVE_F] with PP left 0, max PP) of a Pokemon's moves
    in order, with its ``types`` (PokemonType values) for STAB."""
    own_types = [PT_BY_VALUE[t] for t in types]
    rows = np.zeros((len(move_ids), MON_MOVE_F), dtype=np.float32)
    for i, m in enumerate(move_ids):
        rows[i, 0] = 1.0
        rows[i, 2] = float(move_info(m, mech).type in own_types)
    rows.setflags(write=False)
    return tuple(move_vocab_id(m) for m in move_ids), rows, tuple(max_pp(m, mech) for m in move_ids)


def _encode_mon(
    ids: np.ndarray,
    f: np.ndarray,
    mm: np.ndarray,
    mon,
    own: bool,
    active: bool,
    slot: int,
    in_battle: bool,
    mech: Mechanics = SV,
    sheet: FoeSet | None = None,
) -> None:
    """Write one Pokemon into its id row, feature row and move rows (zeroed beforehand).
    ``sheet``: a foe's open team sheet entry, read where play has not revealed the thing
    (its item while unknown, its ability, its moves in sheet order, its tera type).
    What a Pokemon's species, types, tera type and moves fix is looked up, not recomputed
    (``_mon_static``, ``_moveset``): this runs 12 times a decision."""
    item, ability = mon._item, mon.ability
    if sheet is not None:
        item = sheet.item or None if item == "unknown_item" else item  # a consumed or removed item stays gone
        ability = ability or sheet.ability or None
    types = poke_types(mon)
    is_tera = mon._terastallized
    tera = mon._terastallized_type if (own or is_tera) else None  # Champions requests give no tera type
    if tera is None and sheet is not None:
        tera = sheet.tera
    tv = tuple([t._value_ for t in types if t is not None])
    sid, tid, row = _mon_static(mon._species, tv, tera._value_ if tera is not None else 0, own, is_tera, mech)
    f[:] = row
    ids[ID_SPECIES] = sid
    ids[ID_ITEM] = _item_id(item)
    ids[ID_ABILITY] = _ability_id(ability)
    ids[ID_TERA] = tid
    known = known_moves(mon)
    if sheet is None:
        moves = list(known.values())[:4]
        n = len(moves)
        if n:
            vids, rows, full = _moveset(tuple([mv._id for mv in moves]), tv, mech)
            ids[ID_MOVE0 : ID_MOVE0 + n] = vids
            mm[:n] = rows
            if mech is SV:
                mm[:n, 1] = [min(1.0, mv._current_pp / pp) for mv, pp in zip(moves, full)]
            else:
                mm[:n, 1] = [_pp_frac(mv, mech) for mv in moves]
        f[_MOVES_KNOWN] = n / 4.0
    else:  # the sheet's moves in its order (full PP until used), then any other seen (Transform's ...)
        own_types = [type_index(t) for t in types if t is not None]
        seen = {mv.id: mv for mv in known.values()}
        order = list(dict.fromkeys([*sheet.moves, *seen]))[:4]
        for i, move_id in enumerate(order):
            ids[ID_MOVE0 + i] = move_vocab_id(move_id)
            mm[i, 0] = 1.0
            mm[i, 1] = _pp_frac(seen[move_id], mech) if move_id in seen else 1.0
            mm[i, 2] = float(move_info(move_id, mech).type in own_types)
        f[_MOVES_KNOWN] = len(order) / 4.0
    f[_HP] = hp_frac(mon)
    st = mon._status
    if st is Status.FNT:
        f[_FAINTED] = 1.0
    if active:
        f[_ACTIVE] = 1.0
        if slot >= 0:
            f[_SLOT_A + slot] = 1.0
    if in_battle:
        f[_SEEN] = 1.0
    if st is None or st is Status.FNT:
        f[_ST_NONE] = 1.0
    else:
        f[_ST0 + _STATUS_BY_VALUE[st._value_]] = 1.0
    for b, v in mon._boosts.items():
        if v:
            k = _BOOST_INDEX.get(b)
            if k is not None:
                f[k] = v / 6.0
    if active:
        f[_FIRST] = float(mon._active_turns == 1)
        f[_PROT] = min(mon._protect_counter, 3) / 3.0
        f[_RECH] = float(mon._must_recharge)
        f[_PREP] = float(bool(mon._preparing_target) or bool(mon._preparing_move))
        for e in mon._effects:
            k = _EFFECT_BY_VALUE.get(e._value_)
            if k is not None:
                f[_EFF0 + k] = 1.0
    if own:
        stats = mon._stats
        for i, s in enumerate(OWN_STATS):
            v = stats.get(s)
            if v:
                f[_STAT0 + i] = v / 300.0


class ObservationEncoder:
    """Encodes battles into flat float32 vectors of size ``OBS_DIM``."""

    dim = OBS_DIM

    def encode(
        self,
        battle,
        brought: Sequence[str] | None,
        view=None,
        out: np.ndarray | None = None,
        threat: bool = True,
        foe_sheet: dict[str, FoeSet] | None = None,
    ) -> np.ndarray:
        """``view``: the request's RequestView (per-action blocks stay 0 without one);
        ``threat=False``: the threat block stays 0; ``foe_sheet`` (``foe_sets``): the
        foe's open team sheet, read into its rows, and ``sheets`` set to 1."""
        if out is None:
            out = np.zeros(OBS_DIM, dtype=np.float32)
        else:
            out.fill(0.0)
        v = split(out)
        v["slots"][:] = EMPTY_ROW

        team = battle.team
        mech = mechanics_of(battle.format)
        _encode_own(battle, team, brought, v, mech)
        revealed = list(battle._opponent_team.values()) if battle._opponent_team else []
        _encode_opponents(battle, revealed, v, mech, foe_sheet)
        if foe_sheet:
            v["sheets"][0] = 1.0
        _encode_field(battle, team, brought, revealed, v["field"])
        if view is not None and view.kind in ("move", "switch"):
            _encode_turn(battle, brought, view, v, threat, foe_sheet)
        return out


def _encode_own(battle, team, brought, v, mech: Mechanics) -> None:
    """Own rows 0..5: the brought four first (in the order brought), then the rest."""
    ids, mons, mon_moves, slots = v["ids"], v["mons"], v["mon_moves"], v["slots"]
    active = battle.active_pokemon  # [a, b] (None when empty/fainted)
    own_slot = {id(m): i for i, m in enumerate(active) if m is not None}
    if battle.teampreview or not brought:
        order = list(team.keys())
        in_battle = set()
    else:
        order = list(brought) + [k for k in team.keys() if k not in brought]
        in_battle = set(brought)
    for row, key in enumerate(order[:6]):
        mon = team.get(key)
        if mon is not None:
            s = own_slot.get(id(mon), -1)
            _encode_mon(ids[row], mons[row], mon_moves[row], mon, True, s >= 0, s, key in in_battle, mech)
            if s >= 0:
                slots[s] = row


def _encode_opponents(battle, revealed: list, v, mech: Mechanics, sheet: dict[str, FoeSet] | None = None) -> None:
    """Opponent rows 6..11: preview order, joined with what the battle revealed (and with
    the foe's open team sheet, when there is one)."""
    ids, mons, mon_moves, slots = v["ids"], v["mons"], v["mon_moves"], v["slots"]
    opp_slot = {id(m): i for i, m in enumerate(battle.opponent_active_pokemon) if m is not None}
    used = set()
    rows = []
    for pm in battle.teampreview_opponent_team[:6]:
        match = None
        for m in revealed:
            if id(m) not in used and (m.species == pm.species or m.species.startswith(pm.species)):
                match = m
                break
        if match is not None:
            used.add(id(match))
            rows.append((match, True))
        else:
            rows.append((pm, False))
    for m in revealed:  # anything revealed but not matched to preview (should not happen)
        if id(m) not in used and len(rows) < 6:
            rows.append((m, True))
    for r, (mon, seen) in enumerate(rows[:6]):
        s = opp_slot.get(id(mon), -1)
        # slot left out on purpose: which foe is in which slot is only in ``slots``
        entry = sheet_of(mon.species, sheet) if sheet else None
        _encode_mon(ids[6 + r], mons[6 + r], mon_moves[6 + r], mon, False, s >= 0, -1, seen, mech, entry)
        if s >= 0:
            slots[2 + s] = 6 + r


def _encode_field(battle, team, brought, revealed: list, field: np.ndarray) -> None:
    """Weather, terrain, side conditions, turn, forced switches, tera used, Pokemon left."""
    for w in battle.weather:
        field[_FF["weather_" + w.name.lower()]] = 1.0
    for fl in battle.fields:
        field[_FF["field_" + fl.name.lower()]] = 1.0
    for prefix, conds in (("own_", battle.side_conditions), ("opp_", battle.opponent_side_conditions)):
        for c, val in conds.items():
            field[_FF[prefix + c.name.lower()]] = val / _STACKABLE[c] if c in _STACKABLE else 1.0
    field[_FF["turn"]] = min(battle.turn, 40) / 20.0
    field[_FF["teampreview"]] = float(battle.teampreview)
    fs = battle.force_switch
    if isinstance(fs, list):
        field[_FF["force_switch_a"]] = float(bool(fs[0])) if fs else 0.0
        field[_FF["force_switch_b"]] = float(bool(fs[1])) if len(fs) > 1 else 0.0
    field[_FF["own_used_tera"]] = float(battle.used_tera or battle.used_mega_evolve)
    field[_FF["opp_used_tera"]] = float(battle.opponent_used_tera or battle.opponent_used_mega_evolve)
    own_f = sum(1 for k in (brought or []) if k in team and team[k].fainted)
    opp_f = sum(1 for m in revealed if m.fainted)
    field[_FF["own_left"]] = (4 - own_f) / 4.0
    field[_FF["opp_left"]] = (4 - opp_f) / 4.0


def _encode_turn(battle, brought, view, v, threat: bool = True, foe_sheet: dict[str, FoeSet] | None = None) -> None:
    """Speed of the actives, and what each order of the turn would do (per-action blocks);
    with the foe's open sheet, what it says of the foes enters the analysis."""
    mons, slots = v["mons"], v["slots"]
    ta = TurnAnalysis(battle, foe_sheet)
    fighters = [(int(slots[i]), f) for i, f in enumerate(ta.own + ta.foes) if f is not None and slots[i] < EMPTY_ROW]
    if fighters:
        speeds = [effective_speed(f, ta.env) for _, f in fighters]
        for (row, _), sp in zip(fighters, speeds):
            mons[row, _SPEED] = sp / 200.0
            slower = sum(1 for o in speeds if (o > sp if ta.env.trick_room else o < sp))
            mons[row, _SPEED_RANK] = slower / 3.0
    if view.kind == "move":
        analyse_moves(battle, view, v["act_ids"], v["act_move"], v["act_target"], move_vocab_id, ta)
    analyse_switches(battle, brought, v["switch"], ta)
    if threat:
        analyse_threats(battle, v["threat"], ta)
