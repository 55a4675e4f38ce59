"""A side's team sheet rebuilt from its own log, for replays without open team sheets
(league/bc/replay_protocol.py ``_header``).

What the whole log shows of each Pokemon, read in hindsight (the player knew its own team
at every turn; the log reveals it only as the battle goes): the species and level
(``|poke|`` at team preview, the forme from ``|switch|``), the moves it used (its own:
not ones a move or an ability called, such as Sleep Talk's or Dancer's), the first item
and ability the log attributes to it before anything swapped them, its tera type
(``|-terastallize|``) and mega stone (``|-mega|``). Nothing else: a move it never used is
not on the rebuilt sheet, so the rebuilt request offers fewer moves than Showdown's did
(in the order the log revealed them, not the set's); an item or ability never shown is
none; a Pokemon that never terastallized cannot in the rebuilt requests. Every choice the
log shows is among the rebuilt options (a shown move was used, hence revealed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from poke_env.teambuilder import TeambuilderPokemon

from league.bc.replay_sources import to_id

# tags that make a |move| line not the Pokemon's own choice (a called move)
_OWN_MOVE_TAGS = ("[from] lockedmove",)
# -item / -ability sources that give a new item or ability (not the Pokemon's own)
_SWAPS = ("[from] move:",)
# "As One" as the log names it, by species (the ability's id carries the steed)
_AS_ONE = {"calyrexice": "As One (Glastrier)", "calyrexshadow": "As One (Spectrier)"}


@dataclass
class _Mon:
    species: str
    level: int = 50
    gender: str = ""
    moves: list[str] = field(default_factory=list)
    item: str = ""
    ability: str = ""
    tera: str = ""
    item_swapped: bool = False  # an item was given or taken: later evidence is not its own
    ability_swapped: bool = False
    transformed: bool = False  # moves after Transform are its target's


def _details(details: str) -> tuple[str, int, str]:
    species, *rest = details.split(", ")
    level = next((int(x[1:]) for x in rest if x.startswith("L") and x[1:].isdigit()), 100)
    gender = next((x for x in rest if x in ("M", "F")), "")
    return species.removesuffix("-*"), level, gender


_TAG = re.compile(r"^\[(from|of)\]\s*")


def _norm(parts: list[str]) -> list[str]:
    """Tags written with one space after them ("[from]lockedmove" -> "[from] lockedmove")."""
    return [_TAG.sub(r"[\1] ", p) if p.startswith("[") else p for p in parts]


def _tag(parts: list[str], prefix: str) -> str:
    for p in parts[3:]:
        if p.startswith(prefix):
            return p[len(prefix) :].strip()
    return ""


def sheet_from_log(lines, role: str) -> list[TeambuilderPokemon]:
    """``role``'s team sheet as its log shows it, in team preview order (``|poke|``).
    ``lines``: the replay's protocol lines (league/bc/replay_protocol.py ``_Line``)."""
    mons: list[_Mon] = []
    by_name: dict[str, _Mon] = {}  # the log's name (nickname) -> its entry

    def mon_of(ident: str) -> _Mon | None:
        if not ident.startswith(role):
            return None
        return by_name.get(ident.split(": ", 1)[1]) if ": " in ident else None

    def base(species: str) -> str:
        return to_id(species.split("-")[0])

    for ln in lines:
        parts, k = _norm(ln.parts), ln.kind
        if k == "poke" and ln.arg(2) == role:
            species, level, gender = _details(ln.arg(3))
            mons.append(_Mon(species, level, gender))
        elif k in ("switch", "drag") and ln.arg(2).startswith(role) and ": " in ln.arg(2):
            name = ln.arg(2).split(": ", 1)[1]
            if name not in by_name:
                species, level, gender = _details(ln.arg(3))
                # the preview entry of this species (a preview shows "Urshifu-*" for either forme)
                m = next((m for m in mons if m not in by_name.values() and to_id(m.species) == to_id(species)), None)
                m = m or next((m for m in mons if m not in by_name.values() and base(m.species) == base(species)), None)
                if m is None:
                    m = _Mon(species, level, gender)
                    mons.append(m)
                m.species, m.level, m.gender = species, level, gender
                by_name[name] = m
        elif k == "move":
            m = mon_of(ln.arg(2))
            if m is None or m.transformed:
                continue
            tags = [p for p in parts[4:] if p.startswith("[from]")]
            if any(t not in _OWN_MOVE_TAGS for t in tags):
                continue
            move = to_id(ln.arg(3))
            if move and move != "struggle" and move not in m.moves and len(m.moves) < 4:
                m.moves.append(move)
        elif k == "-transform":
            m = mon_of(ln.arg(2))
            if m is not None:
                m.transformed = True
        elif k == "-terastallize":
            m = mon_of(ln.arg(2))
            if m is not None and not m.tera:
                m.tera = ln.arg(3)
        elif k == "-mega":
            m = mon_of(ln.arg(2))
            if m is not None and ln.arg(4) and not m.item_swapped:
                m.item = m.item or ln.arg(4)
        elif k in ("-item", "-enditem"):
            m = mon_of(ln.arg(2))
            if m is None:
                continue
            if any(p.startswith(_SWAPS) for p in parts[4:]) and k == "-item":
                m.item_swapped = True  # Trick, Switcheroo, Bestow, Thief: not its own item
                continue
            if not m.item_swapped and not m.item:
                m.item = ln.arg(3)
            if k == "-enditem":
                m.item_swapped = True  # used up or knocked off: a later item is not the set's
        elif k == "-ability":
            m = mon_of(ln.arg(2))
            if any(p.startswith(_SWAPS) for p in parts[4:]):
                if m is not None:
                    m.ability_swapped = True  # Skill Swap, Entrainment, Role Play, ...
                continue
            source, of = _tag(parts, "[from] ability:"), _tag(parts, "[of]")
            if source:  # Trace and its kind: the holder's own ability is the source, the [of] Pokemon's the shown one
                if m is not None and not m.ability and not m.ability_swapped:
                    m.ability = source
                o = mon_of(of)
                if o is not None and not o.ability and not o.ability_swapped:
                    o.ability = ln.arg(3)
            elif m is not None and not m.ability and not m.ability_swapped:
                m.ability = ln.arg(3)
        for prefix, attr in (("[from] item:", "item"), ("[from] ability:", "ability")):
            if k == "-ability":
                break
            what = _tag(parts, prefix)
            if not what:
                continue
            of = _tag(parts, "[of]")
            m = mon_of(of) if of else mon_of(ln.arg(2))
            if m is not None and not getattr(m, attr) and not getattr(m, f"{attr}_swapped"):
                setattr(m, attr, what)
    out = []
    for m in mons:
        ability = _AS_ONE.get(to_id(m.species), m.ability) if to_id(m.ability) == "asone" else m.ability
        out.append(
            TeambuilderPokemon(
                species=m.species,
                item=to_id(m.item) or None,
                ability=to_id(ability) or None,
                moves=list(m.moves),
                gender=m.gender or None,
                level=m.level,
                tera_type=m.tera or None,
            )
        )
    return out
