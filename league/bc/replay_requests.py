"""One side's team and the requests Showdown would have sent it, synthesised from a
replay's public information (league/bc/replays.py).

The synthesised request
- the side's team is its ``|showteam|`` sheet (open team sheets: species, item, ability,
  moves in sheet order, tera type, level), named by the nicknames the log reveals;
  without one, the sheet its own log shows in hindsight (league/bc/replay_hindsight.py:
  the moves it used, in the order used, the item and ability shown, the tera type);
- after preview the side is the brought four: the leads (first switch-ins), then the
  backs in the order the log first shows them; a back the log never shows is an
  "unrevealed" entry: healthy and benched (it never entered), so switching to it is legal,
  but it is unknown, so poke-env never sees it (its observation row is empty) and, while
  a back is unrevealed, the side's other team members are dropped from the battle too
  (whether they were brought is unknown);
- HP fraction, status, item, boosts, tera, effects: the battle's own tracking of the log.
  Own stats are not public: the even-spread estimate ``league.battle.dex`` uses for
  opponents (HP in those units; a mega forme's own base stats once it has mega-evolved);
- the game's data, chosen by the replay's format (``|tier|``, as poke-env reads it:
  ``league.battle.dex.mechanics_of``): Scarlet/Violet, or Pokemon Champions' moves, PP,
  stat points and mega stones. Champions requests offer ``canMegaEvo`` (the set's species
  and mega stone, until the side has mega-evolved) in the place of ``canTerastallize``
  and carry no tera type; Fake Out and First Impression are disabled after the
  Pokemon's first move action since it came in (the Champions mod's rule; a ``|move|``,
  a ``|cant|`` or hurting itself in confusion);
- disabled moves: Choice lock (the first move since switching in while a Choice item is
  held; an item given or taken, by Trick or Knock Off, starts it afresh), Assault Vest and
  Taunt (status moves), Encore (all but the last move), Disable, Torment, Heal Block,
  Throat Chop, Gigaton Hammer / Blood Moon twice in a row, no PP left; trapped: the
  battle's trapping effects (Mean Look, partial trapping, Octolock, No Retreat, Ingrain;
  not Ghost types or Shed Shell for the foe-made ones), a Dondozo its Tatsugiri commands;
  a foe's Shadow Tag, Arena Trap (grounded) or Magnet Pull (Steel) from its open team
  sheet or its mega forme; a locked move (``[from] lockedmove``, or the turn after a
  ``|-prepare|`` charge that did not fire at once), a recharge turn (``|cant||recharge``)
  or Struggle is the slot's only move, with no target, no tera and no mega, as in
  Showdown's request. Gravity disables its moves (``flags.gravity``); a foe under
  Imprison disables the moves it has (its sheet's, and those seen), shown so to every
  active Pokemon but the side's last one (Showdown's "hidden" disable).
- The opponent is seen as in the league's own battles (revealed by play, not its team
  sheet): RL battles run without open team sheets, so BC sees what RL will.

"""

from __future__ import annotations

from dataclasses import dataclass

from poke_env.battle import DoubleBattle, Effect, Field, Pokemon, PokemonType
from poke_env.data import GenData
from poke_env.teambuilder import TeambuilderPokemon

from league.battle.dex import estimated_stats, max_pp
from league.bc.replay_protocol import _Header
from league.bc.replay_scan import _Scan, _Slot
from league.bc.replay_sources import ReplayError, to_id

_GEN = GenData.from_gen(9)
_CHOICE_ITEMS = {"choiceband", "choicespecs", "choicescarf"}
_CANT_USE_TWICE = {"gigatonhammer", "bloodmoon"}
# Moves only selectable before the Pokemon's first move action since it came in, by game
# data (Showdown's mods/champions/moves.ts ``onDisableMove``: activeMoveActions > 0)
_FIRST_ACTION_ONLY = {"champions": frozenset({"fakeout", "firstimpression"})}
_FOE_TRAPS = {
    Effect.TRAPPED,
    Effect.PARTIALLY_TRAPPED,
    Effect.BIND,
    Effect.CLAMP,
    Effect.FIRE_SPIN,
    Effect.INFESTATION,
    Effect.MAGMA_STORM,
    Effect.SAND_TOMB,
    Effect.SNAP_TRAP,
    Effect.THUNDER_CAGE,
    Effect.WHIRLPOOL,
    Effect.WRAP,
    Effect.OCTOLOCK,
}
_SELF_TRAPS = {Effect.NO_RETREAT, Effect.INGRAIN}


# ---------------------------------------------------------------- one side's team and requests
_UNREVEALED = "(unrevealed back {})"
_STATS = ("hp", "atk", "def", "spa", "spd", "spe")


@dataclass
class _Memory:
    """What a Pokemon did since it last switched in (for disabled moves)."""

    last_move: str = ""
    choice_move: str = ""
    disabled: str = ""  # by Disable
    acted: bool = False  # ran a move action (Showdown's activeMoveActions > 0): |move|, |cant|, confusion


class _ReplayBattle(DoubleBattle):
    """A DoubleBattle fed synthesised requests: entries for brought Pokemon the log never
    shows stay in ``last_request`` (what the codec reads) but are not given to poke-env,
    which cannot build a Pokemon of unknown species."""

    def parse_request(self, request: dict, strict_battle_tracking: bool = False) -> None:
        side = request["side"]
        known = dict(request, side=dict(side, pokemon=[p for p in side["pokemon"] if not p.get("unrevealed")]))
        super().parse_request(known, strict_battle_tracking)
        self._last_request = request


class _Side:
    """One side's team sheet, its brought four and the requests Showdown would have sent it."""

    def __init__(self, role: str, header: _Header, scan: _Scan):
        self.role, self.username = role, header.players[role]
        self.mech = header.mech
        self.sheet = header.sheets[role]
        foe_sheet = header.sheets["p2" if role == "p1" else "p1"]
        self.foe_abilities = {self._base(m): to_id(m.ability or "") for m in foe_sheet}  # base species -> ability
        self.foe_moves = {self._base(m): [to_id(x) for x in m.moves] for m in foe_sheet}  # base species -> moves
        self.foe_megas: dict[str, str] = {}  # base species -> the mega forme it became (|-mega|)
        base = [self._base(m) for m in self.sheet]
        names_by_base = {self._base_of_details(scan.details[(role, n)]): n for n in scan.revealed[role]}
        self.names = [names_by_base.get(b, self._species(m)) for b, m in zip(base, self.sheet)]
        self.details = {self.names[k]: self._details(m) for k, m in enumerate(self.sheet)}
        missing = [n for n in scan.revealed[role] if n not in self.details]
        if missing:
            raise ReplayError(f"{role}'s {missing[0]!r} is not on its team sheet")
        backs = [n for n in scan.revealed[role] if n not in scan.leads[role]][:2]
        self.revealed = list(scan.leads[role]) + backs
        self.order = [self.ident(n) for n in self.revealed]
        self.order += [f"{role}: {_UNREVEALED.format(k + 1)}" for k in range(4 - len(self.order))]
        self.memory: dict[str, _Memory] = {}

    @staticmethod
    def _species(m: TeambuilderPokemon) -> str:
        return m.species or m.nickname or ""

    def _base(self, m: TeambuilderPokemon) -> str:
        return self._base_of_details(self._species(m))

    def _base_of_details(self, details: str) -> str:
        species = to_id(details.split(",")[0])
        return to_id((self.mech.pokedex.get(species) or {}).get("baseSpecies", species))

    def _details(self, m: TeambuilderPokemon) -> str:
        s = f"{self._species(m)}, L{m.level or 50}"
        return s + (f", {m.gender}" if m.gender in ("M", "F") else "")

    def ident(self, name: str) -> str:
        return f"{self.role}: {name}"

    @property
    def short(self) -> bool:
        """Fewer than four brought Pokemon shown by the log."""
        return len(self.revealed) < 4

    def team_position(self, name: str) -> int:
        return self.names.index(name)

    # -- log lines of this side
    def on_details(self, name: str, details: str) -> None:
        """The species line the log last gave (forme changes): what the request says."""
        self.details[name] = ", ".join(p for p in details.split(", ") if p != "shiny")

    def on_switch_in(self, letter: str, name: str) -> None:
        ident = self.ident(name)
        x, p = "ab".index(letter), self.order.index(ident)
        self.order[x], self.order[p] = self.order[p], self.order[x]
        self.memory[name] = _Memory()

    def on_swap(self) -> None:
        self.order[0], self.order[1] = self.order[1], self.order[0]

    def on_acted(self, name: str) -> None:
        self.memory.setdefault(name, _Memory()).acted = True

    def on_move(self, name: str, move: str) -> None:
        self.on_acted(name)
        if move in ("struggle", "recharge"):
            return
        mem = self.memory.setdefault(name, _Memory())
        mem.last_move = move
        mem.choice_move = mem.choice_move or move

    def on_item(self, name: str) -> None:
        """An item given or taken (Trick, Knock Off, ...): a Choice lock starts afresh."""
        self.memory.setdefault(name, _Memory()).choice_move = ""

    def on_disable(self, name: str, move: str) -> None:
        self.memory.setdefault(name, _Memory()).disabled = move

    # -- requests
    def _entry(self, battle: DoubleBattle, k: int, position: int | None) -> dict:
        m = self.sheet[k]
        name = self.names[k]
        ident = self.ident(name)
        species = to_id(self._species(m))
        now = to_id(self.details[name].split(",")[0])
        if self.mech.is_mega(now):  # Showdown's request gives a mega forme's own stats
            species = now
        level = m.level or 50
        stats = dict(zip(_STATS, (int(x) for x in estimated_stats(species, level, self.mech))))
        max_hp = stats["hp"]
        mon = battle.team.get(ident)
        if mon is None:
            condition, item, ability, tera_on = f"{max_hp}/{max_hp}", to_id(m.item or ""), to_id(m.ability or ""), ""
        else:
            condition = _condition(mon, max_hp)
            item = mon.item if isinstance(mon.item, str) and mon.item != _GEN.UNKNOWN_ITEM else ""
            ability = mon.ability or to_id(m.ability or "")
            tera_on = mon.tera_type.name.title() if mon.is_terastallized and mon.tera_type else ""
        entry = {
            "ident": ident,
            "details": self.details[name],
            "condition": condition,
            "active": position is not None and position < 2,
            "stats": {s: stats[s] for s in _STATS[1:]},
            "moves": [to_id(x) for x in m.moves],
            "baseAbility": to_id(m.ability or ""),
            "item": item,
            "pokeball": "pokeball",
            "ability": ability,
            "commanding": bool(
                mon is not None and Effect.COMMANDER in mon.effects and position is not None and position < 2
            ),
            "reviving": False,
        }
        if not self.mech.megastones:  # Pokemon Champions has no Terastallization: no tera fields
            entry.update(teraType=m.tera_type or "", terastallized=tera_on)
        return entry

    def side(self, battle: DoubleBattle, preview: bool) -> dict:
        if preview:
            mons = [self._entry(battle, k, k) for k in range(len(self.sheet))]
        else:
            mons = []
            for pos, ident in enumerate(self.order):
                name = ident[4:]
                if name in self.names:
                    mons.append(self._entry(battle, self.names.index(name), pos))
                else:
                    mons.append(
                        {
                            "ident": ident,
                            "details": "",
                            "condition": "100/100",
                            "active": False,
                            "moves": [],
                            "unrevealed": True,
                        }
                    )
        return {"name": self.username, "id": self.role, "pokemon": mons}

    def preview_request(self, battle: DoubleBattle) -> dict:
        return {"teamPreview": True, "maxChosenTeamSize": 4, "side": self.side(battle, preview=True)}

    def switch_request(self, battle: DoubleBattle, force: list[bool]) -> dict:
        return {"forceSwitch": list(force), "side": self.side(battle, preview=False), "noCancel": True}

    def move_request(self, battle: DoubleBattle, slots: list[_Slot]) -> dict:
        mons = [battle.team.get(self.order[x]) for x in range(2)]
        commanding = [m is not None and not m.fainted and Effect.COMMANDER in m.effects for m in mons]
        active = [self._active(battle, self.order[x], slots[x], commanded=commanding[1 - x]) for x in range(2)]
        return {"active": active, "side": self.side(battle, preview=False)}

    def _active(self, battle: DoubleBattle, ident: str, slot: _Slot, commanded: bool) -> dict:
        name = ident[4:]
        mon = battle.team.get(ident)
        if mon is None or mon.fainted:
            return {"moves": []}
        k = self.names.index(name)
        if slot.lock in ("locked", "recharge"):  # Showdown: the one move, trapped, no tera or mega
            move = slot.move
            label = "Recharge" if move == "recharge" else _move_name(move)
            return {"moves": [{"move": label, "id": move}], "trapped": True}
        # Showdown's Imprison disables "hidden": shown disabled except to the side's last
        # active Pokemon (Pokemon.getMoves' restrictData is isLastActive)
        pos = self.order.index(ident)
        ally = battle.team.get(self.order[1]) if pos == 0 else None
        last = pos == 1 or ally is None or ally.fainted
        blocked = set() if last else self._imprisoned(battle)
        gravity = Field.GRAVITY in battle.fields
        moves = [
            self._move(mon, to_id(m), self.memory.get(name, _Memory()), gravity, blocked) for m in self.sheet[k].moves
        ]
        out: dict = {"moves": moves}
        if slot.lock == "struggle" or all(m["disabled"] for m in moves):
            out["moves"] = [{"move": "Struggle", "id": "struggle", "target": "randomNormal", "disabled": False}]
        elif self.mech.megastones:  # Pokemon Champions: Mega Evolution, once a battle per side
            m = self.sheet[k]  # Showdown: the set's species and item, until the side mega-evolves
            if not battle.used_mega_evolve and self.mech.mega_species(to_id(self._species(m)), to_id(m.item or "")):
                out["canMegaEvo"] = True
        elif not battle.used_tera and not mon.is_terastallized and self.sheet[k].tera_type:
            out["canTerastallize"] = self.sheet[k].tera_type
        if commanded or _trapped(mon) or self._trapped_by_foe(battle, mon):  # a commanded Dondozo too
            out["trapped"] = True
        return out

    def on_foe_mega(self, species: str, stone: str) -> None:
        mega = self.mech.mega_species(to_id(species), to_id(stone))
        if mega:
            self.foe_megas[self._base_of_details(species)] = mega

    def _foe_ability(self, foe: Pokemon) -> str:
        """An active foe's ability: its mega forme's own, else its open team sheet's."""
        base = self._base_of_details(foe.species)
        abilities = (self.mech.pokedex.get(self.foe_megas.get(base, "")) or {}).get("abilities")
        if abilities:
            return to_id(next(iter(abilities.values())))
        return self.foe_abilities.get(base) or foe.ability or ""

    def _trapped_by_foe(self, battle: DoubleBattle, mon: Pokemon) -> bool:
        """A foe's trapping ability (Showdown's onFoeTrapPokemon; every foe is adjacent in
        doubles): Shadow Tag (not another Shadow Tag), Arena Trap (grounded), Magnet Pull
        (Steel types). Ghost types and Shed Shell escape."""
        if mon.item == "shedshell" or PokemonType.GHOST in mon.types:
            return False
        foes = {self._foe_ability(f) for f in battle.opponent_active_pokemon if f is not None and not f.fainted}
        grounded = PokemonType.FLYING not in mon.types and mon.ability != "levitate" and mon.item != "airballoon"
        return bool(
            ("shadowtag" in foes and mon.ability != "shadowtag")
            or ("arenatrap" in foes and grounded)
            or ("magnetpull" in foes and PokemonType.STEEL in mon.types)
        )

    def _imprisoned(self, battle: DoubleBattle) -> set[str]:
        """Moves an active foe under Imprison (``|-start|...|move: Imprison``) has: from its
        team sheet (or, without one, what the log shows of it) and what it was seen using."""
        out: set[str] = set()
        for f in battle.opponent_active_pokemon:
            if f is not None and not f.fainted and Effect.IMPRISON in f.effects:
                out |= set(self.foe_moves.get(self._base_of_details(f.species), ())) | set(f.moves)
        out.discard("struggle")
        return out

    def _move(self, mon: Pokemon, move_id: str, mem: _Memory, gravity: bool = False, blocked=frozenset()) -> dict:
        entry = self.mech.moves.get(move_id, {})
        known = mon.moves.get(move_id)
        full = max_pp(move_id, self.mech)
        # what the log shows used (poke-env counts down from Scarlet/Violet's maximum), from this game's
        pp = max(0, full - (known.max_pp - int(known.current_pp))) if known is not None else full
        disabled = (
            _disabled(mon, move_id, entry, mem, pp)
            or (mem.acted and move_id in _FIRST_ACTION_ONLY.get(self.mech.name, ()))
            or (gravity and bool(entry.get("flags", {}).get("gravity")))  # Gravity's onDisableMove
            or move_id in blocked
        )
        return {
            "move": _move_name(move_id),
            "id": move_id,
            "pp": pp,
            "maxpp": full,
            "target": entry.get("target", "normal"),
            "disabled": disabled,
        }


def _move_name(move_id: str) -> str:
    """A move's display name (the request's ``move``; the Champions tables carry none)."""
    return _GEN.moves.get(move_id, {}).get("name", move_id)


def _condition(mon: Pokemon, max_hp: int) -> str:
    if mon.fainted:
        return "0 fnt"
    hp = max(1, round(mon.current_hp_fraction * max_hp))
    status = mon.status
    return f"{hp}/{max_hp}" + (f" {status.name.lower()}" if status is not None else "")


def _disabled(mon: Pokemon, move_id: str, entry: dict, mem: _Memory, pp: int) -> bool:
    """The move is disabled in the request Showdown would have sent (see the module doc)."""
    status_move = entry.get("category") == "Status"
    flags = entry.get("flags", {})
    effects = mon.effects
    item = mon.item if isinstance(mon.item, str) else ""
    if pp <= 0:
        return True
    if item in _CHOICE_ITEMS and mem.choice_move and mem.choice_move in mon.moves and move_id != mem.choice_move:
        return True
    if status_move and (item == "assaultvest" or Effect.TAUNT in effects) and move_id != "mefirst":
        return True
    if Effect.ENCORE in effects and mem.last_move and move_id != mem.last_move:
        return True
    if move_id == mem.disabled and Effect.DISABLE in effects:
        return True
    if move_id == mem.last_move and (move_id in _CANT_USE_TWICE or Effect.TORMENT in effects):
        return True
    return bool(
        (Effect.HEAL_BLOCK in effects and flags.get("heal")) or (Effect.THROAT_CHOP in effects and flags.get("sound"))
    )


def _trapped(mon: Pokemon) -> bool:
    if mon.item == "shedshell":
        return False
    effects = set(mon.effects)
    ghost = PokemonType.GHOST in mon.types
    return bool(effects & _SELF_TRAPS) or (not ghost and bool(effects & _FOE_TRAPS))
