"""Record a side's protocol messages during play, and replay them into a fresh
poke-env ``DoubleBattle`` without a websocket (``parse_message`` / ``parse_request``).

Replaying yields the battle at every decision point (each request that asks for a
choice), exactly as a live player saw it: Showdown 0.11.11 sends a turn's log
*before* the request, so the state at a request is current.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import numpy as np
import orjson
from poke_env.battle import DoubleBattle

from league.battle.actions import JOINT_ACTIONS
from league.battle.context import BattleContext, make_decision
from league.battle.protocol import mend

if TYPE_CHECKING:  # the mixin goes in front of a poke-env Player: to the type checker it is one
    from poke_env.player import Player as _Player
else:
    _Player = object

_IGNORED = {"t:", "expire", "uhtmlchange", "tempnotify", "tempnotifyoff"}
_LOG = logging.getLogger("league.replay")


class ReplayError(ValueError):
    def __init__(self, source: str, line_no: int, line: str, cause: Exception):
        super().__init__(f"{source}:{line_no}: cannot replay line {line[:120]!r}: {cause}")
        self.source, self.line_no = source, line_no


def replay(
    lines: Iterable[str],
    username: str,
    battle_tag: str = "battle-replay",
    source: str = "<recording>",
    first_line: int = 1,
) -> Iterator[tuple[DoubleBattle, BattleContext]]:
    """Feed protocol lines (as received, one message line each) into a new battle.

    Yields ``(battle, ctx)`` after each request that needs a decision; ``ctx.line`` is
    that request's line number (counting from ``first_line``). ``|choose|`` lines (our
    logs' recorded choices) are skipped.
    """
    battle = DoubleBattle(battle_tag=battle_tag, username=username, logger=_LOG, gen=9)
    ctx = BattleContext()
    for no, line in enumerate(lines, first_line):
        if not line or not line.startswith("|"):
            continue
        split = line.split("|")
        try:
            if len(split) < 2 or split[1] in _IGNORED:
                continue
            if split[1] == "request":
                if not split[2]:
                    continue
                battle.parse_request(orjson.loads(split[2]))
                if not battle._wait:
                    ctx.view(battle)
                    ctx.line = no
                    yield battle, ctx
            elif split[1] in ("win", "tie"):
                battle.won_by(split[2]) if split[1] == "win" else battle.tied()
            elif split[1] in (
                "choose",
                "error",
                "bigerror",
                "init",
                "title",
                "j",
                "J",
                "l",
                "L",
                "c",
                "raw",
                "html",
                "uhtml",
                "n",
                "N",
                "inactive",
                "inactiveoff",
                "deinit",
                "noinit",
                "popup",
            ):
                continue
            else:
                battle.parse_message(mend(split))
        except ReplayError:
            raise
        except Exception as e:  # malformed line: name the place
            raise ReplayError(source, no, line, e) from e


def replay_decisions(
    lines: Iterable[str], username: str, own_tera: bool = False
) -> list[tuple[np.ndarray, np.ndarray, bool]]:
    """A side's recording replayed into (observation, legality mask padded to the 2,025
    joint actions, is team preview) at each of its decisions, encoded as a live player
    encodes them (tests' recorded steps, offline benchmarks); ``own_tera``: as for a
    network with ``model.own_tera`` (False, the default: as networks before encoder version 6)."""
    out = []
    for battle, ctx in replay(lines, username):
        d = make_decision(battle, ctx, own_tera=own_tera)
        assert d is not None and d.obs is not None  # replay yields requests that need a decision; encoded
        mask = np.zeros(JOINT_ACTIONS, dtype=bool)
        mask[: len(d.mask)] = d.mask
        out.append((d.obs.copy(), mask, d.kind == "preview"))
    return out


class RecordingMixin(_Player):
    """Mix into a LeaguePlayer to keep every battle's raw protocol lines."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.recordings: dict[str, list[str]] = {}

    async def _handle_battle_message(self, split_messages):
        tag = split_messages[0][0][1:] if split_messages and split_messages[0] else ""
        rec = self.recordings.setdefault(tag, [])
        rec.extend("|".join(m) for m in split_messages[1:] if m and len(m) > 1)
        await super()._handle_battle_message(split_messages)
