"""Observation encoder: poke-env ``DoubleBattle`` -> one fixed-size float32 vector.

The whole layout is defined here, once (``LAYOUT``); the model slices by name.

    ids    [12, 8]   integer ids stored as floats (exact below 2**24), embedded by the
                     model: species, item, ability, move0..move3, tera type
                     (vocabularies in vocab.json: 0 = none, 1 = unknown)
    mons   [12, MON_F]  per-Pokemon features (table MON_FEATURES below)
    field  [FIELD_F]    weather, terrain/pseudo-weather, both sides' conditions, turn,
                        phase flags, tera used, Pokemon left

Rows 0..5 are ours: the four brought Pokemon in team-preview order, then the two
left at home (at team preview: the six in team order). Rows 6..11 are the
opponent's six from team preview, in preview order, each joined with its in-battle
state once revealed. Unknown values are 0 (ids: 1 = unknown where the thing exists
but is hidden, e.g. an unrevealed item).

Encoding is on the hot path (every decision): static per-species/per-move parts are
cached, everything is written into a preallocated buffer.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Sequence

import numpy as np
from poke_env.battle import Effect, Field, PokemonType, SideCondition, Status, Weather

N_MONS = 12
N_IDS = 8  # species, item, ability, move x4, tera type
ID_SPECIES, ID_ITEM, ID_ABILITY, ID_MOVE0, ID_TERA = 0, 1, 2, 3, 7

_VOCAB_PATH = Path(__file__).with_name("vocab.json")
_VOCAB = json.loads(_VOCAB_PATH.read_text())
VOCAB_SIZES = {k: len(v) for k, v in _VOCAB.items() if isinstance(v, list)}
_INDEX = {k: {name: i for i, name in enumerate(v)} for k, v in _VOCAB.items() if isinstance(v, list)}

TYPES = list(PokemonType)  # 20 incl. ??? and Stellar
_TYPE_INDEX = {t: i for i, t in enumerate(TYPES)}
STATUSES = [Status.BRN, Status.FRZ, Status.PAR, Status.PSN, Status.SLP, Status.TOX]
_STATUS_INDEX = {s: i for i, s in enumerate(STATUSES)}
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
_EFFECT_INDEX = {e: i for i, e in enumerate(EFFECTS)}
WEATHERS = list(Weather)
FIELDS = list(Field)
SIDE_CONDITIONS = list(SideCondition)
_STACKABLE = {SideCondition.SPIKES: 3.0, SideCondition.TOXIC_SPIKES: 2.0}


def _block(names: Sequence[str]) -> list[str]:
    return list(names)


MON_FEATURES: list[str] = (
    ["present", "is_own", "hp_frac", "fainted", "active", "slot_a", "slot_b", "brought_or_revealed", "terastallized"]
    + ["status_none"] + [f"status_{s.name.lower()}" for s in STATUSES]
    + [f"boost_{b}" for b in BOOSTS]
    + [f"type_{t.name.lower()}" for t in TYPES]
    + [f"tera_{t.name.lower()}" for t in TYPES]
    + [f"base_{s}" for s in BASE_STATS]
    + [f"pp_frac_{i}" for i in range(4)]
    + ["first_turn", "protect_counter", "must_recharge", "preparing"]
    + [f"effect_{e.name.lower()}" for e in EFFECTS]
    + [f"stat_{s}" for s in OWN_STATS]
)
MON_F = len(MON_FEATURES)
_MF = {n: i for i, n in enumerate(MON_FEATURES)}

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
LAYOUT: dict[str, tuple[int, int, tuple[int, ...]]] = {}
_o = 0
for _name, _shape in (("ids", (N_MONS, N_IDS)), ("mons", (N_MONS, MON_F)), ("field", (FIELD_F,))):
    _n = int(np.prod(_shape))
    LAYOUT[_name] = (_o, _o + _n, _shape)
    _o += _n
OBS_DIM = _o


def split(obs: np.ndarray) -> dict[str, np.ndarray]:
    """Views of a flat observation (or a batch [..., OBS_DIM]) by layout name."""
    lead = obs.shape[:-1]
    return {k: obs[..., a:b].reshape(*lead, *shape) for k, (a, b, shape) in LAYOUT.items()}


def vocab_id(table: str, name: str | None) -> int:
    if not name:
        return 0
    return _INDEX[table].get(name, 1)


@lru_cache(maxsize=4096)
def _species_static(species: str) -> tuple[int, np.ndarray]:
    """(species id, base stats / 200) for a species id."""
    from poke_env.data import GenData

    dex = GenData.from_gen(9).pokedex
    entry = dex.get(species)
    base = np.zeros(len(BASE_STATS), dtype=np.float32)
    if entry is not None:
        for i, s in enumerate(BASE_STATS):
            base[i] = entry["baseStats"][s] / 200.0
    return vocab_id("species", species), base


@lru_cache(maxsize=8192)
def _move_id(move_id: str) -> int:
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


def _encode_mon(ids: np.ndarray, f: np.ndarray, mon, own: bool, slot: int, in_battle: bool) -> None:
    """Write one Pokemon into its id row and feature row (both zeroed beforehand)."""
    sid, base = _species_static(mon.species)
    ids[ID_SPECIES] = sid
    ids[ID_ITEM] = _item_id(mon.item)
    ids[ID_ABILITY] = _ability_id(mon.ability)
    for i, mv in enumerate(list(mon.moves.values())[:4]):
        ids[ID_MOVE0 + i] = _move_id(mv.id)
        if mv.max_pp:
            f[_MF["pp_frac_0"] + i] = mv.current_pp / mv.max_pp
    tera = mon.tera_type if (own or mon.is_terastallized) else None
    if tera is not None:
        ids[ID_TERA] = _TYPE_INDEX[tera] + 1
        f[_MF["tera_" + tera.name.lower()]] = 1.0
    f[_MF["present"]] = 1.0
    f[_MF["is_own"]] = float(own)
    f[_MF["hp_frac"]] = mon.current_hp_fraction
    f[_MF["fainted"]] = float(mon.fainted)
    if slot >= 0:
        f[_MF["active"]] = 1.0
        f[_MF["slot_a"] + slot] = 1.0
    f[_MF["brought_or_revealed"]] = float(in_battle)
    f[_MF["terastallized"]] = float(mon.is_terastallized)
    st = mon.status
    if st is None or st == Status.FNT:
        f[_MF["status_none"]] = 1.0
    else:
        f[_MF["status_brn"] + _STATUS_INDEX[st]] = 1.0
    b0 = _MF["boost_atk"]
    boosts = mon.boosts
    for i, b in enumerate(BOOSTS):
        v = boosts.get(b, 0)
        if v:
            f[b0 + i] = v / 6.0
    t0 = _MF["type_bug"]
    for t in mon.types:
        if t is not None:
            f[t0 + _TYPE_INDEX[t]] = 1.0
    f[_MF["base_hp"] : _MF["base_hp"] + 6] = base
    if slot >= 0:
        f[_MF["first_turn"]] = float(mon.first_turn)
        f[_MF["protect_counter"]] = min(mon.protect_counter, 3) / 3.0
        f[_MF["must_recharge"]] = float(mon.must_recharge)
        f[_MF["preparing"]] = float(bool(mon.preparing))
        e0 = _MF["effect_substitute"]
        for e in mon.effects:
            i = _EFFECT_INDEX.get(e)
            if i is not None:
                f[e0 + i] = 1.0
    if own:
        stats = mon.stats
        s0 = _MF["stat_atk"]
        for i, s in enumerate(OWN_STATS):
            v = stats.get(s)
            if v:
                f[s0 + i] = v / 300.0


class ObservationEncoder:
    """Encodes battles into flat float32 vectors of size ``OBS_DIM``."""

    dim = OBS_DIM

    def encode(self, battle, brought: Sequence[str] | None, out: np.ndarray | None = None) -> np.ndarray:
        if out is None:
            out = np.zeros(OBS_DIM, dtype=np.float32)
        else:
            out.fill(0.0)
        v = split(out)
        ids, mons, field = v["ids"], v["mons"], v["field"]

        # ---- own rows 0..5
        team = battle.team
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
                _encode_mon(ids[row], mons[row], mon, True, own_slot.get(id(mon), -1), key in in_battle)

        # ---- opponent rows 6..11: preview order, joined with in-battle state
        preview = battle.teampreview_opponent_team
        revealed = list(battle._opponent_team.values()) if battle._opponent_team else []
        opp_active = battle.opponent_active_pokemon
        opp_slot = {id(m): i for i, m in enumerate(opp_active) if m is not None}
        used = set()
        rows = []
        for pm in preview[:6]:
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
            _encode_mon(ids[6 + r], mons[6 + r], mon, False, opp_slot.get(id(mon), -1), seen)

        # ---- field
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
        field[_FF["own_used_tera"]] = float(battle.used_tera)
        field[_FF["opp_used_tera"]] = float(battle.opponent_used_tera)
        own_f = sum(1 for k in (brought or []) if k in team and team[k].fainted)
        opp_f = sum(1 for m in revealed if m.fainted)
        field[_FF["own_left"]] = (4 - own_f) / 4.0
        field[_FF["opp_left"]] = (4 - opp_f) / 4.0
        return out
