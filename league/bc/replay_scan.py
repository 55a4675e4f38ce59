"""What the log shows each side did: one pass over a replay's battle lines finds every
decision point and, for each slot, the evidence of its order (league/bc/replays.py).

Decision points (a side's request that was answered)
- team preview: right after ``|teampreview|``;
- every played ``|turn|N``: one move request per side (a turn the battle ended on
  before anything happened, a forfeit or the timer, was never answered: not counted);
- every ``|switch|`` after the turn's first move: a mid-turn forced switch (U-turn,
  Eject Button, ...) for that slot;
- the replacements after ``|upkeep|``: one forced-switch request per side that sends
  Pokemon in, flagged for its fainted slots. A request the battle ended on is not counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from poke_env.data import GenData

from league.bc.replay_protocol import _BENCH_IDENT, _IDENT, _Header, _ident, _Line
from league.bc.replay_sources import ReplayError, ReplaySource, to_id

_GEN = GenData.from_gen(9)
_REDIRECTORS = {"move: Follow Me", "move: Rage Powder", "move: Spotlight", "Follow Me", "Rage Powder", "Spotlight"}
_ROD = {"ability: Lightning Rod", "ability: Storm Drain"}
_ACTED = ("move", "cant", "switch", "drag", "faint", "-damage", "-heal", "-terastallize", "-mega")
_RAMPAGE = frozenset({"outrage", "petaldance", "thrash", "ragingfury"})  # Showdown's ``lockedmove`` volatile
_HIT = {"Substitute", "ability: Disguise", "ability: Ice Face"}  # -activate: hit, without -damage


class _Rampage:
    """Outrage and kin (Showdown's data/conditions.ts ``lockedmove``): the volatile is set,
    or renewed, only when the move hits a target; it lasts into the next turn unless it
    ends right after the move, in fatigue (``|-start|X|confusion|[fatigue]``). A miss,
    Protect or a failure lets it lapse silently, as do sleep, fainting and leaving the
    field, and a turn without the move. So the next turn's request is locked to the move
    exactly when it hit this turn and did not end in fatigue: known from the log even when
    the Pokemon then never acts (the battle ends, it faints or flinches first)."""

    def __init__(self):
        self.locked: dict[tuple[str, str], str] = {}  # Pokemon -> the move next turn's request is locked to
        self.now: list | None = None  # [Pokemon, move, hit]: the rampage move being run

    def moved(self, who: tuple[str, str], move: str, called: bool) -> None:
        self.settle()
        if move in _RAMPAGE and not called:  # a called one (Dancer, Metronome) does not lock
            self.now = [who, move, False]

    def hit(self, target: tuple[str, str]) -> None:
        if self.now is not None and target != self.now[0]:
            self.now[2] = True

    def end(self, who: tuple[str, str]) -> None:
        self.locked.pop(who, None)
        if self.now is not None and self.now[0] == who:
            self.now[2] = False

    def settle(self) -> None:
        if self.now is not None:
            who, move, hit = self.now
            if hit:
                self.locked[who] = move
            else:
                self.locked.pop(who, None)
            self.now = None

    def take(self) -> dict[tuple[str, str], str]:
        """At a new turn: the Pokemon locked into their rampage move (and forget them: only
        a hit this turn locks them again)."""
        self.settle()
        out, self.locked = self.locked, {}
        return out


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
        self.rampage = _Rampage()
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
            "-end": self._on_end,
            "-status": self._on_status,
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
            if ln.kind in ("cant", "switch", "drag", "upkeep", "turn"):  # the move before has run
                self.rampage.settle()
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
        rampage = self.rampage.take()
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
                    elif (role, name) in rampage:  # Outrage last turn, no fatigue: locked into it
                        slot.move, slot.lock = rampage[(role, name)], "locked"
                    self.pending[(role, name)] = slot
                    slots.append(slot)
            d = _Decision(role, "turn", i + 1, ln.no, slots)
            self.turn_decisions.append(d)
            self.decisions.append(d)

    def _on_switch(self, i: int, ln: _Line) -> None:
        role, letter, name = _ident(self.src, ln)
        self._see(ln, role, name)
        pos = role + letter
        old = self.occ.get(pos)
        self._leaves(role, old)
        if self.phase == "lead" and pos not in self.occ:
            self.leads[role][letter] = name
        elif self.phase == "upkeep":
            self._replacement(i, role, letter, name)
        else:
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
        self._leaves(role, self.occ.get(role + letter))
        self.occ[role + letter] = name

    def _leaves(self, role: str, name: str | None) -> None:
        """The Pokemon ``name`` (None: nobody) leaves the field: its charge and its rampage end."""
        if name is not None:
            self.prepared.pop((role, name), None)
            self.rampage.end((role, name))

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
        self.rampage.moved((role, name), to_id(ln.arg(3)), called or instructed)
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
        if ln.arg(3) in _HIT:  # a substitute, Disguise or Ice Face took the hit
            role, _, name = _ident(self.src, ln)
            self.rampage.hit((role, name))
        if ln.arg(3) in _ROD:  # logged right after the move it drew in
            role, letter, _ = _ident(self.src, ln)
            for slot in self.just_moved:
                slot.note = "drawn by Lightning Rod / Storm Drain"
                slot.alt = role + letter  # excluded: the chosen target was another

    def _on_cant(self, i: int, ln: _Line) -> None:
        if ln.arg(5).startswith("[of]"):  # Armor Tail, Dazzling, Damp, ...: the holder stopped the [of]
            return  # Pokemon's move, which its |move| line showed
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
        self.rampage.end((role, name))
        slot = self.pending.get((role, name))
        if slot is not None and slot.open:
            slot.why = "fainted before acting"

    def _on_damage(self, i: int, ln: _Line) -> None:
        if not ln.arg(4):  # damage from a move, not from an item, ability, weather, ...
            role, _, name = _ident(self.src, ln)
            self.rampage.hit((role, name))
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
        elif ln.arg(3) == "confusion" and ln.arg(4).replace(" ", "") == "[fatigue]":  # a rampage ends
            role, _, name = _ident(self.src, ln)
            self.rampage.end((role, name))

    def _on_end(self, i: int, ln: _Line) -> None:
        if ln.arg(3) == "Substitute":  # broken by the hit
            role, _, name = _ident(self.src, ln)
            self.rampage.hit((role, name))

    def _on_status(self, i: int, ln: _Line) -> None:
        if ln.arg(3) == "slp":  # asleep at the end of the turn: Showdown drops the rampage
            role, _, name = _ident(self.src, ln)
            self.rampage.end((role, name))

    def _on_terrain(self, i: int, ln: _Line) -> None:
        if ln.arg(2).endswith("Terrain"):
            self.psychic_terrain = ln.kind == "-fieldstart" and ln.arg(2) == "move: Psychic Terrain"

    def _on_gimmick(self, i: int, ln: _Line) -> None:
        """|-terastallize| or |-mega| before the turn's moves: the order's b = 1 bit (the codec's)."""
        role, _, name = _ident(self.src, ln)
        slot = self.pending.get((role, name))
        if slot is not None:
            slot.tera = True
