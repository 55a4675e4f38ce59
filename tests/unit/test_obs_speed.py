"""The encoder's shortcuts read poke-env's fields directly or remember what they computed
(issue 31): each must equal what it replaces, on every Pokemon of the recorded battles
(Reg C with tera, Reg M-B with mega formes) at every decision."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from poke_env.battle import Move, Pokemon, PokemonType

from league.battle.analysis import _attack_types, _types_of
from league.battle.dex import SV, champions, type_index
from league.battle.fighter import hp_frac, known_moves, poke_types
from league.battle.moves import move_info
from league.battle.obs import _poke_env_max_pp
from league.battle.replay import replay

DATA = Path(__file__).resolve().parents[1] / "data"


def _mons_at_decisions():
    recs = json.loads((DATA / "recorded_battles.json").read_text())
    mb = json.loads((DATA / "recorded_regmb.json").read_text())["sides"]
    more = json.loads(gzip.decompress((DATA / "obs_identity_battles.json.gz").read_bytes()))
    for rec in [*recs, *mb, *more]:
        for battle, _ in replay(rec["lines"], rec["username"]):
            yield battle, [*battle.team.values(), *battle.opponent_team.values(), *battle.teampreview_opponent_team]


def test_shortcuts_equal_what_they_replace_on_every_recorded_pokemon():
    n = tera = 0
    for battle, mons in _mons_at_decisions():
        mech = champions() if "champions" in battle.format else SV
        for mon in mons:
            n += 1
            tera += bool(mon.is_terastallized)
            assert poke_types(mon) == tuple(mon.types), mon.species
            assert hp_frac(mon) == mon.current_hp_fraction, mon.species
            assert known_moves(mon) == mon.moves, mon.species
            assert _types_of(mon) == tuple(type_index(t) for t in mon.types if t is not None)
            want = [move_info(m, mech).type for m in list(mon.moves)[:4] if move_info(m, mech).category < 2]
            want = [t for t in want if t >= 0] or [t for t in _types_of(mon) if t >= 0]
            assert list(_attack_types(mon, mech)) == want, mon.species
            for mv in mon.moves.values():
                assert _poke_env_max_pp(mv) == mv.max_pp, mv.id
    assert n > 5000 and tera > 50  # Pokemon enough, terastallized ones among them


def test_poke_types_follows_temporary_types_and_tera():
    mon = Pokemon(gen=9, species="amoonguss")
    assert poke_types(mon) == tuple(mon.types) == (PokemonType.GRASS, PokemonType.POISON)
    mon._temporary_types = [PokemonType.WATER]  # Soak
    assert poke_types(mon) == tuple(mon.types) == (PokemonType.WATER,)
    mon._temporary_types = [PokemonType.FIRE, PokemonType.GHOST]
    assert poke_types(mon) == tuple(mon.types) == (PokemonType.FIRE, PokemonType.GHOST)
    mon._terastallized, mon._terastallized_type = True, PokemonType.STEEL
    assert poke_types(mon) == tuple(mon.types) == (PokemonType.STEEL,)
    mon._terastallized_type = None  # terastallized, type not known yet
    assert poke_types(mon) == tuple(mon.types) == (PokemonType.FIRE,)
    mon._temporary_types = []
    assert poke_types(mon) == tuple(mon.types) == (PokemonType.GRASS,)


def test_known_moves_follows_transform_and_mimic():
    mon = Pokemon(gen=9, species="ditto")
    mon._add_move("transform")
    assert known_moves(mon) == mon.moves == {"transform": mon.moves["transform"]}
    target = Pokemon(gen=9, species="amoonguss")
    for m in ("spore", "ragepowder"):
        target._add_move(m)
    mon.transform(target)
    assert list(known_moves(mon)) == list(mon.moves) == ["spore", "ragepowder"]
    mimic = Pokemon(gen=9, species="mrmime")
    mimic._add_move("mimic")
    mimic._add_move("psychic")
    mimic._moves.mimic_move = Move("protect", gen=9, from_mimic=True)
    assert list(known_moves(mimic)) == list(mimic.moves) == ["protect", "psychic"]


def test_type_index_by_value_equals_the_enum_keyed_table():
    from league.battle.dex import PT_INDEX, TYPE_INDEX

    for pt in PokemonType:
        assert type_index(pt) == PT_INDEX[pt] == TYPE_INDEX.get(pt.name, -1), pt
    assert type_index(None) == -1 and type_index("water") == TYPE_INDEX["WATER"] and type_index("???") == -1


def test_env_of_a_clear_field_is_the_default_env_and_weather_and_terrain_still_read():
    from poke_env.battle import Field, Weather

    from league.battle.fighter import Env, env_of

    class B:  # the two fields env_of reads
        def __init__(self, weather, fields):
            self.weather, self.fields = weather, fields

    assert env_of(B({}, {})) == Env()
    assert env_of(B({Weather.RAINDANCE: 1}, {})) == Env(rain=True)
    assert env_of(B({}, {Field.TRICK_ROOM: 3, Field.PSYCHIC_TERRAIN: 2})) == Env(trick_room=True, psychic=True)
    assert env_of(B({Weather.SNOWSCAPE: 1}, {Field.GRAVITY: 1})) == Env(snow=True, gravity=True)
