"""Open team sheets as the observation and the turn analysis read them: a foe's sheet
(moves, item, ability, tera type; no stats), by species, from Showdown's ``|showteam|``
(a live battle whose players accepted open team sheets, or a replay with open sheets)."""

from __future__ import annotations

from dataclasses import dataclass

from poke_env.battle import PokemonType
from poke_env.data import to_id_str


@dataclass(frozen=True)
class FoeSet:
    """One foe Pokemon's open team sheet as the encoder reads it (Showdown ids)."""

    moves: tuple[str, ...]
    item: str
    ability: str
    tera: PokemonType | None


def foe_sets(sheet) -> dict[str, FoeSet]:
    """A foe's open team sheet (poke-env TeambuilderPokemon, as a replay's ``|showteam|``
    gives it) by species id: what ``ObservationEncoder.encode``'s ``foe_sheet`` takes."""
    out = {}
    for m in sheet:
        tera = None
        if m.tera_type:
            try:
                tera = PokemonType.from_name(m.tera_type)
            except (ValueError, KeyError):
                tera = None
        out[to_id_str(m.species or m.nickname or "")] = FoeSet(
            tuple(to_id_str(x) for x in m.moves if x)[:4], to_id_str(m.item or ""), to_id_str(m.ability or ""), tera
        )
    return out


def sheet_of(species: str, sheet: dict[str, FoeSet]) -> FoeSet | None:
    """The sheet entry of a battle Pokemon: its species, else the longest sheet species it
    extends (a mega or other forme of it), else the one sheet species that extends it
    (team preview's "Urshifu-*" for the sheet's Urshifu-Rapid-Strike)."""
    hit = sheet.get(species)
    if hit is not None:
        return hit
    base = max((k for k in sheet if k and species.startswith(k)), key=len, default=None)
    if base is not None:
        return sheet[base]
    formes = [k for k in sheet if k.startswith(species)] if species else []
    return sheet[formes[0]] if len(formes) == 1 else None
