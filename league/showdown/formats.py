"""Which Showdown formats the league can play, read from the installed Showdown's own
format list (league/showdown/formats.js), not from a list of ours.

The codec (league/battle/actions.py) and the encoder (league/battle/obs.py) play gen 9
doubles with team preview and "bring 6, pick 4": 90 team-preview actions choose two
leads and two backs out of at most six, four Pokemon per side in battle, and one
once-per-battle transformation an order can carry (Terastallization, or Mega Evolution
in Pokemon Champions). So a format is supported when it is

- gen 9 doubles (``gameType: doubles``), on Showdown's Scarlet/Violet mechanics (mod
  ``gen9`` or one of its dex-restricting variants, ``SV_MODS``) or on Pokemon Champions'
  (``CHAMPIONS_MODS``: its own moves, mega stones and stat points, which
  league/battle/dex.py reads from dex_champions.json, chosen by the id's
  ``gen9champions`` prefix; without ``Level Clause Mod``, whose level-dependent stat
  formula dex.py does not model);
- with teams the players bring (no random or generated teams) and team preview;
- ``Picked Team Size = 4`` out of teams of 4 to 6 Pokemon;
- with "vgc" or "double" in its id: poke-env (``Player.format_is_doubles``) opens a
  battle as doubles by its format's name.

The level is read from each Pokemon (VGC formats set 50), so it is not a condition.
:func:`check_format` is called before any battle (league/run.py, TeamRepository.load):
an unknown id is one error naming the closest ids, an unsupported one says why and
lists the supported ids.
"""

from __future__ import annotations

import difflib
import json
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from league.showdown.install import ShowdownInstall, locate_showdown

FORMATS_JS = Path(__file__).with_name("formats.js")
SV_MODS = ("gen9", "gen9predlc", "gen9dlc1")  # Scarlet/Violet, whole or before a DLC
CHAMPIONS_MODS = ("champions", "championsregma")  # Pokemon Champions: the same data, different legal items
PICKED_TEAM_SIZE = 4  # league/battle/actions.py: 2 leads + 2 backs
MAX_TEAM_SIZE = 6  # league/battle/actions.py: TEAM_SIZE


class FormatError(ValueError):
    """A format id Showdown does not know, or one the codec cannot play."""


@dataclass(frozen=True)
class FormatInfo:
    id: str
    name: str
    mod: str
    game_type: str
    gen: int | None
    team: str | None  # a team generator ("random", ...), None when players bring teams
    team_preview: bool | None  # read for gen 9 doubles formats only
    picked_team_size: int | None
    min_team_size: int | None
    max_team_size: int | None
    adjust_level: int | None
    error: str | None = None  # Showdown could not build the format's rule table
    level_clause_mod: bool = False  # Champions: stats computed from the level (read for gen 9 doubles)
    # the "Open Team Sheets" rule: both players may accept to see each other's sheets at team
    # preview (read for gen 9 doubles; "Force Open Team Sheets", the Bo3 formats', is not it)
    open_team_sheets: bool = False

    def unsupported(self) -> str:
        """Why the league cannot play this format ("" when it can)."""
        if self.gen != 9:
            return f"it is a gen {self.gen} format; the league plays gen 9 (Scarlet/Violet)"
        if self.game_type != "doubles":
            return f"it is a {self.game_type} format; the league plays doubles"
        if self.mod not in SV_MODS + CHAMPIONS_MODS:
            return (
                f"it runs on Showdown's '{self.mod}' mod, not Scarlet/Violet's mechanics "
                f"({', '.join(SV_MODS)}) or Pokemon Champions' ({', '.join(CHAMPIONS_MODS)}), "
                "which the encoder and its damage model know"
            )
        from league.battle.dex import CHAMPIONS_PREFIX  # here: dex.py loads poke-env's data, formats.py stays light

        if self.mod in CHAMPIONS_MODS and not self.id.startswith(CHAMPIONS_PREFIX):
            return (
                f"it runs on the '{self.mod}' mod but its id does not start with '{CHAMPIONS_PREFIX}', "
                "which is how league/battle/dex.py picks the Champions data for a battle"
            )
        if self.error:
            return f"Showdown could not read its rules ({self.error})"
        if self.level_clause_mod:
            return (
                "its Level Clause Mod computes Champions stats from each Pokemon's level, which "
                "league/battle/dex.py's stat-point formula does not model"
            )
        if self.team:
            return f"its teams are generated ({self.team}); the league plays teams it brings from a pool"
        if not self.team_preview:
            return "it has no team preview; the league's agents pick four at team preview"
        if self.picked_team_size != PICKED_TEAM_SIZE:
            what = "brings the whole team" if self.picked_team_size is None else f"picks {self.picked_team_size}"
            return f"it {what}; the league's codec plays bring 6, pick {PICKED_TEAM_SIZE}"
        if (self.max_team_size or 0) > MAX_TEAM_SIZE or (self.min_team_size or 0) < PICKED_TEAM_SIZE:
            return (
                f"its teams hold {self.min_team_size} to {self.max_team_size} Pokemon; the codec needs "
                f"{PICKED_TEAM_SIZE} to {MAX_TEAM_SIZE}"
            )
        if "vgc" not in self.id and "double" not in self.id:
            return "poke-env opens a battle as doubles only when its format id holds 'vgc' or 'double'"
        return ""


@lru_cache(maxsize=4)
def _formats(node: str, package_dir: str) -> dict[str, FormatInfo]:
    try:
        out = subprocess.run([node, str(FORMATS_JS), package_dir], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired as e:
        raise FormatError("reading Showdown's format list timed out") from e
    if out.returncode != 0:
        raise FormatError(f"reading Showdown's format list failed (exit {out.returncode}):\n{out.stderr[-2000:]}")
    rows = json.loads(out.stdout)["formats"]
    return {
        r["id"]: FormatInfo(
            id=r["id"],
            name=r["name"],
            mod=r["mod"],
            game_type=r["gameType"],
            gen=r["gen"],
            team=r["team"],
            team_preview=r.get("teamPreview"),
            picked_team_size=r.get("pickedTeamSize"),
            min_team_size=r.get("minTeamSize"),
            max_team_size=r.get("maxTeamSize"),
            adjust_level=r.get("adjustLevel"),
            error=r.get("error"),
            level_clause_mod=bool(r.get("levelClauseMod")),
            open_team_sheets=bool(r.get("openTeamSheets")),
        )
        for r in rows
    }


def open_team_sheets_refusal(info: FormatInfo, key: str) -> str:
    """Why open team sheets (``key``) cannot be asked of the format ``info`` ("" when they
    can): only a format with Showdown's "Open Team Sheets" rule shows sheets that both
    players accept, and a player that accepted waits at team preview until they come."""
    if info.open_team_sheets:
        return ""
    return (
        f'{key}: the format {info.id!r} ({info.name}) has no "Open Team Sheets" rule, so no sheets would '
        "be shown and every team preview would wait for them; turn it off, or play a format with the rule "
        "(the VGC formats, e.g. gen9vgc2023regc, gen9championsvgc2026regmb)"
    )


def showdown_formats(install: ShowdownInstall | None = None) -> dict[str, FormatInfo]:
    """Every format of the installed Showdown by id (one Node process per install, cached)."""
    install = install or locate_showdown()
    return _formats(install.node, str(install.package_dir))


def supported_formats(install: ShowdownInstall | None = None) -> list[str]:
    """The ids of the formats the league can play, in Showdown's order."""
    return [f.id for f in showdown_formats(install).values() if not f.unsupported()]


def check_format(format_id: str, install: ShowdownInstall | None = None, key: str = "format") -> FormatInfo:
    """The format ``format_id`` when the league can play it; else one :class:`FormatError`
    naming ``key`` (the setting it came from), why, and what to use instead."""
    install = install or locate_showdown()
    formats = showdown_formats(install)
    ok = supported_formats(install)
    info = formats.get(format_id)
    if info is None:
        close = difflib.get_close_matches(str(format_id), list(formats), n=4, cutoff=0.6)
        near = f"; closest: {', '.join(close)}" if close else ""
        raise FormatError(
            f"{key} {format_id!r} is not a format of pokemon-showdown {install.version}{near}. "
            f"The league plays: {', '.join(ok)}"
        )
    why = info.unsupported()
    if why:
        raise FormatError(
            f"{key} {format_id!r} ({info.name}) is not supported: {why}. The league plays: {', '.join(ok)}"
        )
    return info
