"""Real Showdown replays (the spectator protocol) -> behaviour-cloning trajectories.

A replay as the replay site serves it (``.json`` with a ``log`` field, or the raw ``.log``
text) has no ``|request|`` and no choices. Each side is read on its own: the log is fed
into a fresh poke-env ``DoubleBattle`` from that side's seat and, at every point where
Showdown would have asked that side for a choice, a request is synthesised from public
information and given to ``battle.parse_request``; ``make_decision`` then builds the
observation and legality mask exactly as for RL (same encoder, same codec). The label is
read from what the log shows the side did. Output: ``league.bc.dataset``'s chunks, one
trajectory per side with policy ``"human"``.

Decision points (a side's request that was answered)
- team preview: right after ``|teampreview|``;
- every played ``|turn|N``: one move request per side (a turn the battle ended on
  before anything happened, a forfeit or the timer, was never answered: not counted);
- every ``|switch|`` after the turn's first move: a mid-turn forced switch (U-turn,
  Eject Button, ...) for that slot;
- the replacements after ``|upkeep|``: one forced-switch request per side that sends
  Pokemon in, flagged for its fainted slots. A request the battle ended on is not counted.

The synthesised request
- the side's team is its ``|showteam|`` sheet (open team sheets: species, item, ability,
  moves in sheet order, tera type, level), named by the nicknames the log reveals;
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
  Showdown's request. Not modelled (the rebuilt mask may allow what the real one did
  not): Imprison, Gravity.
- The opponent is seen as in the league's own battles (revealed by play, not its team
  sheet): RL battles run without open team sheets, so BC sees what RL will.

Labels (a decision is reconstructed only when both slots are; nothing is guessed)
- ``|move|`` of the slot's Pokemon without a ``[from]`` tag (the chosen move; a
  ``[from]`` move was called by another: Dancer, Instruct, Sleep Talk, Magic Bounce, ...;
  a move right after ``-singleturn ... move: Instruct`` was instructed): move index in
  its sheet, b = 1 when it terastallized (``|-terastallize|``) or mega-evolved
  (``|-mega|``) this turn; ``[from] lockedmove``, recharge and
  Struggle are the slot's only order;
- target: the codec's index of the logged target when the move takes one. The logged
  target is where the move went, which is the chosen one except when Showdown moved it:
  Follow Me / Rage Powder / Spotlight on the logged target this turn, Lightning Rod /
  Storm Drain (``-activate`` right after), a chosen foe that fainted earlier in the turn
  or left the field (the other foe position is then a candidate), a move made spread
  (``[spread]`` on a single-target move, Expanding Force in Psychic Terrain, Tera
  Starstorm: Showdown logs a random target), Dragon Darts, a ``|cant|`` naming the move,
  no target shown; ``[notarget]`` naming a fainted foe (no foe was left: any foe that was
  there is a candidate) or a fainted ally (chosen). A charge move's target (hidden on the
  charge turn) is read from its attack (``[from] lockedmove``, same turn with Power Herb or
  the next). Then the target is reconstructed only when the rebuilt mask leaves one
  candidate;
- ``|switch|`` before the turn's first move: a switch order to that brought Pokemon;
- empty slot, Commander: pass (the mask's only order);
- no shown choice: ``|cant|`` without a move (sleep, paralysis, flinch, freeze, Truant,
  ...), fainted before acting, hurt itself in confusion, Encore changed the move, the
  battle ended first, a move not on its sheet (Transform, ...): unreconstructable
  unless the rebuilt mask has a single order for the slot;
- team preview: the two leads and the two other Pokemon the log shows; with fewer than
  four shown, unreconstructable;
- a reconstructed action outside its rebuilt mask is counted as ``illegal`` and skipped.
Every skipped decision is counted by reason; a trajectory is the side's reconstructed
decisions in order (skipped ones leave gaps). Illusion (a disguise is logged as another
Pokemon) is not supported: such a replay is an error, as is a malformed one (naming the
file and the log line) or one without open team sheets.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from poke_env.battle import DoubleBattle, Effect, Pokemon, PokemonType
from poke_env.data import GenData
from poke_env.teambuilder import Teambuilder, TeambuilderPokemon

from league.battle.actions import (
    CHOOSABLE_TARGETS,
    JOINT_ACTIONS,
    NO_TARGET,
    PASS,
    RequestView,
    joint_action,
    move_action,
    preview_action,
    slot_mask,
    switch_action,
)
from league.battle.context import BattleContext, Decision, foe_alive, make_decision
from league.battle.dex import Mechanics, estimated_stats, max_pp, mechanics_of
from league.bc.dataset import ChunkWriter, SideTrajectory, check_formats, team_key, write_manifest
from league.bc.replay_sources import ReplayError, ReplaySource, iter_replay_sources, replay_meta, to_id

POLICY = "human"
_LOG = logging.getLogger("league.replays")
_GEN = GenData.from_gen(9)

# Lines with nothing for the battle: chat, timers, room furniture.
_NOISE = {
    "",
    "t:",
    "c",
    "c:",
    "chat",
    "j",
    "J",
    "l",
    "L",
    "n",
    "N",
    "inactive",
    "inactiveoff",
    "html",
    "uhtml",
    "uhtmlchange",
    "raw",
    "init",
    "title",
    "deinit",
    "noinit",
    "popup",
    "expire",
    "tempnotify",
    "tempnotifyoff",
    "bigerror",
    "error",
    "debug",
    "hidelines",
    "badge",
    "askreg",
    "seed",
}
_NOT_FED = {"showteam", "win", "tie"}  # read here, not by poke-env
_IDENT = re.compile(r"^(p[12])([ab]): (.+)$")
_BENCH_IDENT = re.compile(r"^(p[12]): (.+)$")  # a Pokemon not on the field (a fainted target)
_REDIRECTORS = {"move: Follow Me", "move: Rage Powder", "move: Spotlight", "Follow Me", "Rage Powder", "Spotlight"}
_ROD = {"ability: Lightning Rod", "ability: Storm Drain"}
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
_ACTED = ("move", "cant", "switch", "drag", "faint", "-damage", "-heal", "-terastallize", "-mega")


# ---------------------------------------------------------------- protocol
@dataclass(frozen=True)
class _Line:
    no: int  # 1-based line of the log
    parts: list[str]

    @property
    def kind(self) -> str:
        return self.parts[1]

    def arg(self, i: int) -> str:
        return self.parts[i] if i < len(self.parts) else ""

    @property
    def text(self) -> str:
        return "|".join(self.parts)


def _protocol_lines(src: ReplaySource, text: str, ignored: Counter | None = None) -> list[_Line]:
    """The log's battle lines (noise dropped; of a ``|split|`` pair, the public line). A
    line that is no protocol line (text a server or a client added: an open team sheet
    agreement, a chat client's note) is skipped and counted in ``ignored`` as ``text``."""
    out: list[_Line] = []
    raw = text.split("\n")
    skip_next = False
    for no, line in enumerate(raw, 1):
        line = line.rstrip("\r")
        if skip_next:
            skip_next = False
            continue
        if not line:
            continue
        if not line.startswith("|"):
            if ignored is not None:
                ignored["text"] += 1
            continue
        parts = line.split("|")
        if parts[1] == "split":
            skip_next = True  # the next line is the side's secret version; the public one follows
            continue
        if parts[1] not in _NOISE:
            out.append(_Line(no, parts))
    return out


@dataclass
class _Header:
    players: dict[str, str]  # role -> username
    sheets: dict[str, list[TeambuilderPokemon]]  # role -> team sheet, team order
    preview: int  # index of |teampreview| in the lines
    start: int  # index of |start|
    end: int  # index of |win| / |tie|
    winner: str | None  # role, None for a tie
    format: str  # the format id, from |tier| as poke-env reads it ("" when absent)

    @property
    def mech(self) -> Mechanics:
        """The game data the battle plays with (Scarlet/Violet when |tier| is absent)."""
        return mechanics_of(self.format)


def _ident(src: ReplaySource, line: _Line, i: int = 2) -> tuple[str, str, str]:
    m = _IDENT.match(line.arg(i))
    if not m:
        raise ReplayError(f"{src.where(line.no)}: expected a Pokemon like 'p1a: Name', got {line.arg(i)[:40]!r}")
    return m.group(1), m.group(2), m.group(3)


def _header(src: ReplaySource, lines: list[_Line]) -> _Header:
    players: dict[str, str] = {}
    sheets: dict[str, list[TeambuilderPokemon]] = {}
    flags: dict[str, str] = {}
    preview = start = end = None
    winner: str | None = None
    for i, ln in enumerate(lines):
        k = ln.kind
        if k == "player" and ln.arg(3) and ln.arg(2) not in players:
            players[ln.arg(2)] = ln.arg(3)
        elif k in ("gametype", "gen", "tier"):
            flags[k] = ln.arg(2)
        elif k == "teampreview" and preview is None:
            preview = i
        elif k == "showteam":
            try:
                sheets[ln.arg(2)] = Teambuilder.parse_packed_team("|".join(ln.parts[3:]))
            except Exception as e:  # noqa: BLE001 - poke-env raises anything on a bad sheet
                raise ReplayError(f"{src.where(ln.no)}: unreadable team sheet ({e})") from None
        elif k == "start" and start is None:
            start = i
        elif k in ("win", "tie"):
            end = i
            if k == "win":
                by_name = {to_id(name): role for role, name in players.items()}
                winner = by_name.get(to_id(ln.arg(2)))
                if winner is None:
                    raise ReplayError(f"{src.where(ln.no)}: the winner {ln.arg(2)!r} is not a player")
            break
    last = lines[-1].no if lines else 1
    if flags.get("gametype") != "doubles" or flags.get("gen") != "9":
        raise ReplayError(
            f"{src.where(None)}: not a gen 9 doubles battle (gametype {flags.get('gametype')}, gen {flags.get('gen')})"
        )
    if set(players) != {"p1", "p2"}:
        raise ReplayError(f"{src.where(None)}: expected |player| lines for p1 and p2, got {sorted(players)}")
    if preview is None:
        raise ReplayError(f"{src.where(None)}: no |teampreview|: parse-replays reads bring-6-pick-4 formats")
    if set(sheets) != {"p1", "p2"}:
        raise ReplayError(
            f"{src.where(None)}: no |showteam| for {sorted({'p1', 'p2'} - set(sheets))}: "
            "parse-replays needs open team sheets"
        )
    if start is None:
        raise ReplayError(f"{src.where(last)}: the battle never starts (no |start|)")
    if end is None:
        raise ReplayError(f"{src.where(last)}: the battle never ends (no |win| or |tie|): a truncated replay?")
    for role, sheet in sheets.items():
        if any(to_id(m.ability or "") == "illusion" for m in sheet):
            raise ReplayError(
                f"{src.where(None)}: {role} has an Illusion Pokemon (the log may show a disguise): not supported"
            )
    fmt = re.sub("[^a-z0-9]+", "", flags.get("tier", "").lower())  # as poke-env reads |tier| (battle.format)
    return _Header(players, sheets, preview, start, end, winner, fmt)


# ---------------------------------------------------------------- what the log shows each side did
@dataclass
class _Slot:
    """What one slot's Pokemon did with its order (evidence for the label)."""

    kind: str  # "move", "switch", "pass", "unknown"
    move: str = ""  # move id
    target: str | None = None  # logged target position, e.g. "p2a"
    note: str = ""  # why the logged target may not be the chosen one
    alt: str | None = None  # retarget: the other position the order may have named
    switch_to: str = ""  # name switched in
    tera: bool = False
    lock: str = ""  # "locked", "recharge", "struggle": the slot's only move
    why: str = ""  # unknown: why the order is not shown

    @property
    def open(self) -> bool:
        """Still waiting for what the Pokemon did this turn."""
        return self.kind == "unknown" and not self.why


@dataclass
class _Decision:
    role: str
    kind: str  # "preview", "turn", "switch"
    at: int  # index of the line the decision is taken before
    line: int  # its log line (messages)
    slots: list[_Slot] = field(default_factory=list)
    force: list[bool] = field(default_factory=list)


@dataclass
class _Scan:
    decisions: list[_Decision]
    leads: dict[str, list[str]]  # role -> [slot a, slot b] names
    revealed: dict[str, list[str]]  # role -> names in order of first appearance
    details: dict[tuple[str, str], str]  # (role, name) -> details of its first appearance


class _Scanner:
    """One pass over the battle lines: decision points and the evidence of each."""

    def __init__(self, src: ReplaySource, lines: list[_Line], header: _Header):
        self.src, self.lines, self.h = src, lines, header
        self.occ: dict[str, str | None] = {}  # position ("p1a") -> name
        self.fainted: set[tuple[str, str]] = set()
        self.decisions: list[_Decision] = []
        self.leads: dict[str, dict[str, str]] = {"p1": {}, "p2": {}}  # role -> letter -> name
        self.revealed: dict[str, list[str]] = {"p1": [], "p2": []}
        self.details: dict[tuple[str, str], str] = {}
        self.species: dict[tuple[str, str], str] = {}  # (role, name) -> base species id
        self.phase = "lead"  # lead (before turn 1), choice (before the first move), moves, upkeep
        self.pending: dict[tuple[str, str], _Slot] = {}  # this turn's evidence by Pokemon
        self.turn_decisions: list[_Decision] = []
        self.turn_events = 0
        self.redirector: dict[str, str] = {}  # role -> name with Follow Me / Rage Powder this turn
        self.instructed: tuple[str, str] | None = None
        self.encored: set[tuple[str, str]] = set()
        self.moved: list[_Slot] = []  # evidence this line's move gave
        self.just_moved: list[_Slot] = []  # ... the line just before
        self.charging: dict[tuple[str, str], _Slot] = {}  # this turn's charge turns, by Pokemon
        self.charged: dict[tuple[str, str], _Slot] = {}  # ... last turn's, whose attack is due now
        self.psychic_terrain = False  # Expanding Force is then a spread move
        # |-prepare|: charged this turn (Solar Beam, Electro Shot, Fly, ...): the next turn's request
        # is locked to its attack even when the Pokemon faints or flinches before it (by Pokemon)
        self.prepared: dict[tuple[str, str], str] = {}
        self.replacements: dict[str, _Decision] = {}
        self.replace_at: int | None = None

    def run(self) -> _Scan:
        for role in ("p1", "p2"):
            self.decisions.append(_Decision(role, "preview", self.h.preview + 1, self.lines[self.h.preview].no))
        handlers = {
            "turn": self._on_turn,
            "switch": self._on_switch,
            "drag": self._on_drag,
            "swap": self._on_swap,
            "replace": self._on_replace,
            "upkeep": self._on_upkeep,
            "move": self._on_move,
            "-activate": self._on_activate,
            "cant": self._on_cant,
            "faint": self._on_faint,
            "-damage": self._on_damage,
            "-singleturn": self._on_singleturn,
            "-start": self._on_start,
            "-terastallize": self._on_gimmick,
            "-mega": self._on_gimmick,
            "-prepare": self._on_prepare,
            "-anim": self._on_anim,
            "-fieldstart": self._on_terrain,
            "-fieldend": self._on_terrain,
        }
        for i in range(self.h.start + 1, self.h.end + 1):
            ln = self.lines[i]
            self.just_moved, self.moved = self.moved, []
            handler = handlers.get(ln.kind)
            if handler is not None:
                handler(i, ln)
            if ln.kind in _ACTED:
                self.turn_events += 1
        self._end_turn(battle_over=True)
        self.decisions.sort(key=lambda d: (d.at, d.role))
        leads = {role: [by[x] for x in "ab" if x in by] for role, by in self.leads.items()}
        return _Scan(self.decisions, leads, self.revealed, self.details)

    # -- bookkeeping
    def _see(self, ln: _Line, role: str, name: str) -> None:
        details = ln.arg(3)
        species = to_id(details.split(",")[0])
        base = to_id((self.h.mech.pokedex.get(species) or {}).get("baseSpecies", species))
        known = self.species.get((role, name))
        if known is not None and known != base:
            raise ReplayError(f"{self.src.where(ln.no)}: two {role} Pokemon named {name!r}: not supported")
        if known is None:
            self.species[(role, name)] = base
            self.revealed[role].append(name)
            self.details[(role, name)] = details

    def _end_turn(self, battle_over: bool) -> None:
        if not self.turn_decisions:
            return
        if battle_over and self.turn_events == 0:  # ended (forfeit, timer) before any order ran
            self.decisions = [d for d in self.decisions if d not in self.turn_decisions]
        for slot in self.pending.values():
            if slot.open:
                slot.why = "the battle ended before it acted" if battle_over else "no action shown in the log"
        self.turn_decisions, self.pending = [], {}

    # -- handlers (one per line kind that matters)
    def _on_turn(self, i: int, ln: _Line) -> None:
        self._end_turn(battle_over=False)
        self.phase = "choice"
        self.turn_events = 0
        self.redirector, self.encored, self.instructed = {}, set(), None
        self.charged, self.charging = self.charging, {}
        prepared, self.prepared = self.prepared, {}
        self.replacements, self.replace_at = {}, None
        for role in ("p1", "p2"):
            slots = []
            for letter in "ab":
                name = self.occ.get(role + letter)
                if name is None or (role, name) in self.fainted:
                    slots.append(_Slot("pass"))
                else:
                    slot = _Slot("unknown")
                    if (role, name) in prepared:  # charged last turn: this turn's request is its attack
                        slot.move, slot.lock = prepared[(role, name)], "locked"
                    self.pending[(role, name)] = slot
                    slots.append(slot)
            d = _Decision(role, "turn", i + 1, ln.no, slots)
            self.turn_decisions.append(d)
            self.decisions.append(d)

    def _on_switch(self, i: int, ln: _Line) -> None:
        role, letter, name = _ident(self.src, ln)
        self._see(ln, role, name)
        pos = role + letter
        self.prepared.pop((role, self.occ.get(pos)), None)  # a charge ends when its Pokemon leaves
        if self.phase == "lead" and pos not in self.occ:
            self.leads[role][letter] = name
        elif self.phase == "upkeep":
            self._replacement(i, role, letter, name)
        else:
            old = self.occ.get(pos)
            slot = self.pending.get((role, old)) if old else None
            if self.phase == "choice" and slot is not None and slot.open:
                slot.kind, slot.switch_to = "switch", name
            else:
                d = _Decision(role, "switch", i, ln.no, force=[letter == "a", letter == "b"])
                d.slots = [_Slot("switch", switch_to=name) if x == letter else _Slot("pass") for x in "ab"]
                self.decisions.append(d)
        self.occ[pos] = name

    def _replacement(self, i: int, role: str, letter: str, name: str) -> None:
        if self.replace_at is None:
            self.replace_at = i
        d = self.replacements.get(role)
        if d is None:
            force = [(role, self.occ.get(role + x)) in self.fainted for x in "ab"]
            d = _Decision(
                role, "switch", self.replace_at, self.lines[i].no, force=force, slots=[_Slot("pass"), _Slot("pass")]
            )
            self.replacements[role] = d
            self.decisions.append(d)
        d.slots["ab".index(letter)] = _Slot("switch", switch_to=name)

    def _on_drag(self, i: int, ln: _Line) -> None:
        role, letter, name = _ident(self.src, ln)
        self._see(ln, role, name)
        self.prepared.pop((role, self.occ.get(role + letter)), None)
        self.occ[role + letter] = name

    def _on_prepare(self, i: int, ln: _Line) -> None:
        role, _, name = _ident(self.src, ln)
        self.prepared[(role, name)] = to_id(ln.arg(3))

    def _on_anim(self, i: int, ln: _Line) -> None:
        """The charged move fired at once (Solar Beam in sun, Power Herb): no lock next turn."""
        role, _, name = _ident(self.src, ln)
        if self.prepared.get((role, name)) == to_id(ln.arg(3)):
            del self.prepared[(role, name)]

    def _on_swap(self, i: int, ln: _Line) -> None:
        role, _, _ = _ident(self.src, ln)
        self.occ[role + "a"], self.occ[role + "b"] = self.occ.get(role + "b"), self.occ.get(role + "a")

    def _on_replace(self, i: int, ln: _Line) -> None:
        raise ReplayError(f"{self.src.where(ln.no)}: Illusion (|replace|) is not supported")

    def _on_upkeep(self, i: int, ln: _Line) -> None:
        self.phase = "upkeep"

    def _on_move(self, i: int, ln: _Line) -> None:
        role, letter, name = _ident(self.src, ln)
        if self.phase == "choice":
            self.phase = "moves"
        tags = [t.replace(" ", "") for t in ln.parts[5:]]
        called = any(t.startswith("[from]") and t != "[from]lockedmove" for t in tags)
        instructed = self.instructed == (role, name)
        self.instructed = None
        if "[from]lockedmove" in tags:  # the attack of a charge (this turn with Power Herb)
            self.prepared.pop((role, name), None)
        self._attack_of_charge(role, name, ln, tags)
        slot = self.pending.get((role, name))
        if slot is None or not slot.open or called or instructed:
            return
        if (role, name) in self.encored:
            slot.why = "Encore changed its move this turn"
            return
        move = to_id(ln.arg(3))
        slot.kind, slot.move = "move", move
        slot.lock = "locked" if "[from]lockedmove" in tags else ("struggle" if move == "struggle" else "")
        self._aim(role, slot, ln, tags)
        if not ln.arg(4) and "[still]" in tags:  # a charge turn hides the target: its attack shows it
            self.charging[(role, name)] = slot

    def _aim(self, role: str, slot: _Slot, ln: _Line, tags: list[str]) -> None:
        slot.target = self._position(role, ln.arg(4))
        slot.note = self._target_note(role, slot, tags, ln.arg(4).split(": ", 1)[-1])
        self.moved.append(slot)

    def _attack_of_charge(self, role: str, name: str, ln: _Line, tags: list[str]) -> None:
        """A charge move's attack (``[from] lockedmove``, this turn with Power Herb or the next):
        the target of the turn it charged."""
        if "[from]lockedmove" not in tags:
            return
        slot = self.charging.pop((role, name), None) or self.charged.pop((role, name), None)
        if slot is not None and slot.move == to_id(ln.arg(3)):
            self._aim(role, slot, ln, tags)

    def _target_note(self, role: str, slot: _Slot, tags: list[str], target_name: str) -> str:
        if slot.target is None:
            return "no target shown"
        if slot.target.endswith("?"):  # Showdown fell back to a fainted foe: none was left
            return "its target fainted before the move"
        if any(t.startswith("[spread]") for t in tags) or (slot.move == "expandingforce" and self.psychic_terrain):
            return "made a spread move (random target logged)"
        if slot.move == "terastarstorm":  # spread when Terapagos-Stellar uses it
            return "may be a spread move (random target logged)"
        if _GEN.moves.get(slot.move, {}).get("smartTarget"):
            return "smart targeting (Dragon Darts)"
        foe = slot.target[:2]
        if foe != role and self.redirector.get(foe) == target_name:
            return "redirected (Follow Me / Rage Powder)"
        other = foe + ("b" if slot.target[2] == "a" else "a")
        gone = self.occ.get(other)
        if foe != role and (gone is None or (foe, gone) in self.fainted):
            slot.alt = other  # a foe chosen there would have been retargeted here
            return "the other foe fainted (retarget)"
        return ""

    def _position(self, role: str, text: str) -> str | None:
        """The logged target's position: ``p2a`` from ``p2a: Name``; a fainted target is
        logged ``p2: Name``: its last position on our side, ``p2?`` on the foe's."""
        m = _IDENT.match(text)
        if m:
            return m.group(1) + m.group(2)
        m = _BENCH_IDENT.match(text)
        if m is None:
            return None
        if m.group(1) != role:
            return m.group(1) + "?"
        where = [pos for pos, name in self.occ.items() if pos[:2] == role and name == m.group(2)]
        return where[0] if where else None

    def _on_activate(self, i: int, ln: _Line) -> None:
        if ln.arg(3) in _ROD:  # logged right after the move it drew in
            role, letter, _ = _ident(self.src, ln)
            for slot in self.just_moved:
                slot.note = "drawn by Lightning Rod / Storm Drain"
                slot.alt = role + letter  # excluded: the chosen target was another

    def _on_cant(self, i: int, ln: _Line) -> None:
        role, _, name = _ident(self.src, ln)
        if self.phase == "choice":
            self.phase = "moves"
        slot = self.pending.get((role, name))
        if slot is None or not slot.open:
            return
        reason, move = ln.arg(3), ln.arg(4)
        if reason == "recharge":
            slot.kind, slot.move, slot.lock = "move", "recharge", "recharge"
        elif move:
            slot.kind, slot.move, slot.note = "move", to_id(move), f"|cant| ({reason}) names the move, not its target"
        else:
            slot.why = f"|cant| ({reason}): its order is not shown"

    def _on_faint(self, i: int, ln: _Line) -> None:
        role, letter, name = _ident(self.src, ln)
        self.fainted.add((role, name))
        self.prepared.pop((role, name), None)
        slot = self.pending.get((role, name))
        if slot is not None and slot.open:
            slot.why = "fainted before acting"

    def _on_damage(self, i: int, ln: _Line) -> None:
        if ln.arg(4).replace(" ", "") == "[from]confusion":
            role, _, name = _ident(self.src, ln)
            slot = self.pending.get((role, name))
            if slot is not None and slot.open:
                slot.why = "hurt itself in confusion"

    def _on_singleturn(self, i: int, ln: _Line) -> None:
        role, _, name = _ident(self.src, ln)
        if ln.arg(3) in _REDIRECTORS:
            self.redirector[role] = name
        elif ln.arg(3) == "move: Instruct":
            self.instructed = (role, name)

    def _on_start(self, i: int, ln: _Line) -> None:
        if ln.arg(3) in ("Encore", "move: Encore"):
            role, _, name = _ident(self.src, ln)
            self.encored.add((role, name))

    def _on_terrain(self, i: int, ln: _Line) -> None:
        if ln.arg(2).endswith("Terrain"):
            self.psychic_terrain = ln.kind == "-fieldstart" and ln.arg(2) == "move: Psychic Terrain"

    def _on_gimmick(self, i: int, ln: _Line) -> None:
        """|-terastallize| or |-mega| before the turn's moves: the order's b = 1 bit (the codec's)."""
        role, _, name = _ident(self.src, ln)
        slot = self.pending.get((role, name))
        if slot is not None:
            slot.tera = True


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
        moves = [self._move(mon, to_id(x), self.memory.get(name, _Memory())) for x in self.sheet[k].moves]
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

    def _move(self, mon: Pokemon, move_id: str, mem: _Memory) -> dict:
        entry = self.mech.moves.get(move_id, {})
        known = mon.moves.get(move_id)
        full = max_pp(move_id, self.mech)
        # what the log shows used (poke-env counts down from Scarlet/Violet's maximum), from this game's
        pp = max(0, full - (known.max_pp - int(known.current_pp))) if known is not None else full
        disabled = _disabled(mon, move_id, entry, mem, pp) or (
            mem.acted and move_id in _FIRST_ACTION_ONLY.get(self.mech.name, ())
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


# ---------------------------------------------------------------- labels
class _Skip(Exception):
    """This decision cannot be reconstructed (the message is the counted reason)."""


def _target_index(user_role: str, position: str) -> int:
    """Codec target of a logged position, seen from a user of ``user_role``."""
    if position[:2] != user_role:
        return 3 if position[2] == "a" else 4
    return 1 if position[2] == "a" else 0


def _slot_label(
    side: _Side, view: RequestView, x: int, slot: _Slot, foes: tuple[bool, bool], brought: list[str]
) -> int:
    legal = slot_mask(view, x, foes)
    if slot.kind == "pass":
        return PASS
    if slot.kind == "switch":
        ident = side.ident(slot.switch_to)
        if ident not in brought:
            raise _Skip("switched to a Pokemon not brought")
        return switch_action(brought.index(ident))
    if slot.kind == "unknown":
        if legal.sum() == 1:
            return int(np.flatnonzero(legal)[0])
        raise _Skip(slot.why or "no action shown in the log")
    moves = view.active[x].get("moves", []) if x < len(view.active) else []
    ids = [m.get("id") for m in moves]
    if slot.move not in ids:
        raise _Skip("a move not on its team sheet (Transform, ...)")
    j = ids.index(slot.move)
    move = moves[j]
    if "target" not in move or move["target"] not in CHOOSABLE_TARGETS:
        return move_action(j, NO_TARGET, slot.tera)
    candidates = [t for t in range(5) if legal[move_action(j, t, slot.tera)]]
    if not slot.note:
        t = _target_index(side.role, slot.target)
    elif slot.target and slot.target.endswith("?"):  # any foe that was there
        t = _unique([c for c in candidates if c >= 3], slot.note)
    elif slot.alt and slot.note.startswith("the other foe"):
        both = {_target_index(side.role, slot.target), _target_index(side.role, slot.alt)}
        t = _unique([c for c in candidates if c in both], slot.note)
    elif slot.alt:  # drawn by Lightning Rod: the chosen target was any other
        t = _unique([c for c in candidates if c != _target_index(side.role, slot.alt)], slot.note)
    else:
        t = _unique(candidates, slot.note)
    return move_action(j, t, slot.tera)


def _unique(candidates: list[int], note: str) -> int:
    if len(candidates) != 1:
        raise _Skip(f"target not shown: {note}")
    return candidates[0]


def _turn_label(side: _Side, d: Decision, battle: DoubleBattle, slots: list[_Slot], brought: list[str]) -> int:
    foes = foe_alive(battle)
    a0, a1 = (_slot_label(side, d.view, x, slots[x], foes, brought) for x in range(2))
    return joint_action(a0, a1)


def _preview_label(side: _Side) -> int:
    if side.short:
        raise _Skip("team preview: not all four brought Pokemon shown")
    leads = tuple(side.team_position(n) for n in side.revealed[:2])
    backs = tuple(side.team_position(n) for n in side.revealed[2:4])
    return preview_action(leads, backs)


# ---------------------------------------------------------------- one side, one replay
@dataclass
class ReplayCounts:
    """Per replay: decisions found, reconstructed, and why the others were skipped."""

    name: str
    format: str = ""  # the battle's format id (|tier|)
    decisions: int = 0
    reconstructed: int = 0
    illegal: int = 0  # reconstructed actions outside their rebuilt mask (skipped)
    skipped: Counter = field(default_factory=Counter)
    ignored_lines: Counter = field(default_factory=Counter)  # lines read past, by kind ("text": no protocol line)

    def summary(self) -> str:
        """``NAME: R/N decisions reconstructed (skipped: reason: n, ...)``"""
        why = ", ".join(f"{r}: {n}" for r, n in sorted(self.skipped.items()))
        return f"{self.name}: {self.reconstructed}/{self.decisions} decisions reconstructed" + (
            f" (skipped: {why})" if why else ""
        )

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "format": self.format,
            "decisions": self.decisions,
            "reconstructed": self.reconstructed,
            "illegal": self.illegal,
            "skipped": dict(sorted(self.skipped.items())),
            "ignored_lines": dict(sorted(self.ignored_lines.items())),
        }


def _feed(battle: DoubleBattle, side: _Side, ln: _Line) -> None:
    """One log line into the battle, and into the side's order and memory."""
    k = ln.kind
    m = _IDENT.match(ln.arg(2))
    own = m is not None and m.group(1) == side.role
    if own and k in ("switch", "drag"):
        side.on_switch_in(m.group(2), m.group(3))
        side.on_details(m.group(3), ln.arg(3))
    elif own and k == "detailschange":
        side.on_details(m.group(3), ln.arg(3))
    elif own and k == "swap":
        side.on_swap()
    elif own and k == "move":
        side.on_move(m.group(3), to_id(ln.arg(3)))
    elif not own and m is not None and k == "-mega":
        side.on_foe_mega(ln.arg(3), ln.arg(4))
    elif own and (k == "cant" or (k == "-damage" and ln.arg(4).replace(" ", "") == "[from]confusion")):
        side.on_acted(m.group(3))
    elif own and k in ("-item", "-enditem"):
        side.on_item(m.group(3))
    elif own and k == "-start" and ln.arg(3) == "Disable":
        side.on_disable(m.group(3), to_id(ln.arg(4)))
    battle.parse_message(ln.parts)


ILLEGAL = "illegal under the rebuilt mask"


@dataclass
class ReplayDecision:
    """One decision point of one side, rebuilt: the request's view, its legality mask and,
    when the log shows the choice, the label (else the reason it is skipped)."""

    kind: str  # "preview" or "turn" (move and forced-switch requests)
    line: int  # the log line the decision is taken at
    view: RequestView
    mask: np.ndarray  # bool (90,) or (2025,)
    label: int | None = None
    reason: str = ""
    obs: np.ndarray | None = None  # float32 (OBS_DIM,), for a labelled decision


@dataclass
class SideReplay:
    role: str
    outcome: float  # +1 win, -1 loss, 0 tie
    team: str  # team_key of its team sheet
    decisions: list[ReplayDecision]
    format: str = ""  # the battle's format id (|tier|)
    ignored: Counter = field(default_factory=Counter)  # lines read past, by kind


def _side_replay(src: ReplaySource, lines: list[_Line], header: _Header, scan: _Scan, role: str) -> SideReplay:
    side = _Side(role, header, scan)
    battle = _ReplayBattle(battle_tag=f"replay-{role}", username=side.username, logger=_LOG, gen=9)
    ctx = BattleContext()
    outcome = 0.0 if header.winner is None else (1.0 if header.winner == role else -1.0)
    out = SideReplay(role, outcome, "", [], header.format)
    todo = [d for d in scan.decisions if d.role == role]
    nxt = 0
    for i in range(header.end + 1):
        while nxt < len(todo) and todo[nxt].at == i:
            out.decisions.append(_decide(src, battle, ctx, side, todo[nxt]))
            if todo[nxt].kind == "preview":
                out.team = team_key(battle.last_request)
            nxt += 1
        ln = lines[i]
        if ln.kind in _NOT_FED:
            continue
        try:
            _feed(battle, side, ln)
        except ReplayError:
            raise
        except NotImplementedError:  # poke-env's answer to a kind of line it lacks (a newer server's): read past it
            out.ignored[ln.kind] += 1
        except Exception as e:  # noqa: BLE001 - a line poke-env cannot read: name it
            raise ReplayError(f"{src.where(ln.no)}: cannot read {ln.text[:100]!r} ({type(e).__name__}: {e})") from None
    return out


def _decide(src: ReplaySource, battle: DoubleBattle, ctx: BattleContext, side: _Side, d: _Decision) -> ReplayDecision:
    """Synthesise the request of one decision point, rebuild its mask and label it."""
    if d.kind == "preview":
        request = side.preview_request(battle)
    elif d.kind == "switch":
        request = side.switch_request(battle, d.force)
    else:
        request = side.move_request(battle, d.slots)
    try:
        battle.parse_request(request)
        decision = make_decision(battle, ctx, encode=False)
    except Exception as e:  # noqa: BLE001 - the synthesised request does not fit the battle
        raise ReplayError(
            f"{src.where(d.line)}: cannot rebuild {side.role}'s request ({type(e).__name__}: {e})"
        ) from None
    if decision is None:
        raise ReplayError(f"{src.where(d.line)}: {side.role}'s rebuilt request asks for nothing")
    if d.kind == "preview" and side.short:  # whether the others were brought is unknown: not in the battle
        for ident in [k for k in battle.team if k not in side.order]:
            del battle.team[ident]
    out = ReplayDecision(decision.kind, d.line, decision.view, decision.mask)
    try:
        label = (
            _preview_label(side)
            if d.kind == "preview"
            else _turn_label(side, decision, battle, d.slots, ctx.brought or [])
        )
    except _Skip as e:
        out.reason = str(e)
        return out
    if not decision.mask[label]:
        out.reason = ILLEGAL
        return out
    out.label = label
    out.obs = make_decision(battle, ctx, encode=True).obs
    return out


def reconstruct(src: ReplaySource) -> tuple[str, list[SideReplay]]:
    """(replay id, both sides' rebuilt decisions) of one replay; ReplayError naming file and line."""
    replay_id, text = src.read()
    ignored: Counter = Counter()
    lines = _protocol_lines(src, text, ignored)
    header = _header(src, lines)
    scan = _Scanner(src, lines, header).run()
    sides = []
    for role in ("p1", "p2"):
        try:
            sides.append(_side_replay(src, lines, header, scan, role))
        except ReplayError as e:
            msg = str(e)
            raise ReplayError(msg if msg.startswith(src.name) else f"{src.where(None)}: {msg}") from None
    for s in sides:
        s.ignored.update(ignored)
    return replay_id, sides


def parse_replay(src: ReplaySource) -> tuple[list[SideTrajectory], ReplayCounts]:
    """Both sides' trajectories (their reconstructed decisions, policy ``human``) and the
    replay's counts."""
    replay_id, sides = reconstruct(src)
    counts = ReplayCounts(replay_id, sides[0].format)
    counts.ignored_lines = Counter(sides[0].ignored)  # both sides read the same lines of one log
    trajs = []
    for side in sides:
        traj = SideTrajectory(POLICY, side.outcome, side.team)
        for d in side.decisions:
            counts.decisions += 1
            if d.label is None:
                counts.skipped[d.reason] += 1
                counts.illegal += d.reason == ILLEGAL
                continue
            counts.reconstructed += 1
            mask = np.zeros(JOINT_ACTIONS, dtype=bool)
            mask[: len(d.mask)] = d.mask
            traj.obs.append(d.obs.astype(np.float16))
            traj.mask.append(mask)
            traj.is_preview.append(d.kind == "preview")
            traj.actions.append(d.label)
        trajs.append(traj)
    return trajs, counts


def held_out(key: str, share: float) -> bool:
    """Whether a replay goes to the held-out split: its name's SHA-1 among the lowest
    ``share`` (decided by the name alone, so a stream splits as the whole would)."""
    import hashlib

    return share > 0 and int(hashlib.sha1(key.encode()).hexdigest()[:8], 16) < share * 2**32


def _parse_one(job: tuple[ReplaySource, str | None, float | None]):
    """(source, trajectories, counts) of one replay, or (source, None, why) when it is
    skipped: a ReplayError (malformed), or a filter (``format ...`` / ``rating ...``)."""
    source, fmt, min_rating = job
    try:
        if fmt is not None or min_rating is not None:
            _, log, obj = source.read_object()
            got_fmt, rating = replay_meta(log, obj)
            if fmt is not None and got_fmt != fmt:
                return source, None, f"format {got_fmt or 'not stated'}"
            if min_rating is not None and (rating is None or rating < min_rating):
                return source, None, "rating not stated" if rating is None else f"rating below {min_rating:g}"
        trajs, counts = parse_replay(source)
    except ReplayError as e:
        return source, None, e
    return source, trajs, counts


def _parsed(sources, jobs_args: tuple, workers: int, batch: int = 64):
    """_parse_one over ``sources`` in order, on ``workers`` processes; at most ``batch``
    replays a worker in flight (the input is read as it goes: memory stays flat)."""
    from itertools import islice

    it = ((s, *jobs_args) for s in sources)
    if workers <= 1:
        yield from map(_parse_one, it)
        return
    import multiprocessing as mp

    with mp.get_context("spawn").Pool(workers) as pool:
        while jobs := list(islice(it, batch * workers)):
            yield from pool.imap(_parse_one, jobs, chunksize=4)


def build_replay_dataset(
    src: str | Path,
    out_dir: str | Path,
    chunk_trajectories: int = 400,
    heldout_share: float = 0.1,
    on_error=print,
    on_replay=print,
    workers: int = 1,
    fmt: str | None = None,
    min_rating: float | None = None,
    on_progress=None,
) -> dict:
    """Parse every replay of SRC (:func:`iter_replay_sources`: read as a stream, on
    ``workers`` processes) into chunks under ``out_dir`` (the format ``tools.bc train``
    reads); a malformed replay is reported (file and line) and skipped; ``fmt`` and
    ``min_rating`` keep the replays that state that format and at least that rating (the
    others counted in ``filtered`` by reason). The manifest adds ``decisions_total``,
    ``illegal``, ``filtered``, ``ignored_lines`` and ``replays``: each replay's counts.
    ``on_progress(replays read)`` after each."""
    sources = iter_replay_sources(src)
    first = next(sources)  # a source that is none or empty fails here, before any output
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ReplayError(f"{out_dir}: exists and is not a directory; give --out a directory")
    out_dir.mkdir(parents=True, exist_ok=True)
    writer = ChunkWriter(out_dir, chunk_trajectories)
    errors: list[str] = []
    per_replay: list[dict] = []
    filtered: Counter = Counter()
    ignored: Counter = Counter()
    counts = {"battles": 0, "trajectories": 0, "decisions": 0, "decisions_total": 0, "illegal": 0}
    seen = 0
    for source, trajs, c in _parsed(itertools.chain([first], sources), (fmt, min_rating), workers):
        seen += 1
        if on_progress is not None:
            on_progress(seen)
        if trajs is None:
            if isinstance(c, ReplayError):
                errors.append(str(c))
                on_error(f"skipped: {c}")
            else:
                filtered[c] += 1
            continue
        writer.add("heldout" if held_out(source.key(), heldout_share) else "train", trajs)
        counts["battles"] += 1
        counts["trajectories"] += len(trajs)
        counts["decisions"] += c.reconstructed
        counts["decisions_total"] += c.decisions
        counts["illegal"] += c.illegal
        ignored.update(c.ignored_lines)
        per_replay.append({"source": source.name, **c.as_dict()})
        on_replay(c.summary())
    formats = sorted({r["format"] for r in per_replay if r["format"]})
    try:
        check_formats(formats, src)
    except ValueError as e:
        raise ReplayError(str(e)) from None
    return write_manifest(
        out_dir,
        counts,
        writer.close(),
        errors,
        seen,
        formats,
        replays=per_replay,
        filtered=dict(sorted(filtered.items())),
        ignored_lines=dict(sorted(ignored.items())),
    )
