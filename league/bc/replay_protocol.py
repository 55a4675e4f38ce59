"""Replay protocol lines and the header every replay must have (players, open team
sheets, team preview, start and end, format): league/bc/replays.py reads them.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from poke_env.teambuilder import Teambuilder, TeambuilderPokemon

from league.battle.dex import Mechanics, mechanics_of
from league.bc.replay_hindsight import sheet_from_log
from league.bc.replay_sources import ReplayError, ReplaySource, to_id

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


_AGREED = re.compile(r"^(.+) has agreed to open team sheets\.$")  # the server's text (chat-commands/core.ts)


def _protocol_lines(
    src: ReplaySource, text: str, ignored: Counter | None = None, agreed: list[str] | None = None
) -> list[_Line]:
    """The log's battle lines (noise dropped; of a ``|split|`` pair, the public line). A
    line that is no protocol line is text a server or a client added: an open team sheet
    agreement (the player's name goes to ``agreed``), else (a chat client's note, ...)
    skipped and counted in ``ignored`` as ``text``."""
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
            if (m := _AGREED.match(line)) and agreed is not None:
                agreed.append(m.group(1))
            elif ignored is not None:
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
    from_log: tuple[str, ...] = ()  # roles without |showteam|: their sheets rebuilt from the log (replay_hindsight)

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
    from_log = tuple(r for r in ("p1", "p2") if r not in sheets)
    for role in from_log:  # no open team sheet: what the log shows of the team, in hindsight
        sheets[role] = sheet_from_log(lines[: end + 1 if end is not None else len(lines)], role)
        if any(ln.kind == "replace" and ln.arg(2).startswith(role) for ln in lines):
            raise ReplayError(f"{src.where(None)}: {role} has an Illusion Pokemon (a |replace| line): not supported")
    if start is None:
        raise ReplayError(f"{src.where(last)}: the battle never starts (no |start|)")
    if end is None:
        raise ReplayError(f"{src.where(last)}: the battle never ends (no |win| or |tie|): a truncated replay?")
    for role, sheet in sheets.items():
        if any(
            to_id(m.ability or "") == "illusion" or to_id(m.species or "").startswith(("zoroark", "zorua"))
            for m in sheet
        ):
            raise ReplayError(
                f"{src.where(None)}: {role} has an Illusion Pokemon (the log may show a disguise): not supported"
            )
    fmt = re.sub("[^a-z0-9]+", "", flags.get("tier", "").lower())  # as poke-env reads |tier| (battle.format)
    return _Header(players, sheets, preview, start, end, winner, fmt, from_log)
