"""Per-battle state the codec needs beyond poke-env's battle object, and the
one function that turns a battle into a decision (observation, mask, request view)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from poke_env.battle.pokemon_type import PokemonType

from league.battle.actions import RequestView, joint_mask, preview_mask
from league.battle.obs import OBS_DIM, ObservationEncoder


class BattleContext:
    """Remembers the brought four (team-preview order) for stable switch indices."""

    __slots__ = ("brought", "decisions", "line", "tag", "could_mega", "foe_sheet", "tera_read")

    def __init__(self, tag: str = "") -> None:
        self.tag = tag  # the battle's tag
        self.brought: list[str] | None = None
        self.decisions = 0
        self.could_mega = False  # a request of this battle offered Mega Evolution
        self.line = 0  # replay only: the line number of the request being answered
        # the foe's open team sheet (league.battle.sheets.foe_sets), when the battle has open
        # team sheets: the observation reads it (replays whose sheets are open)
        self.foe_sheet: dict | None = None
        # our Pokemon's tera types copied from a request (read_tera_types): None never tried,
        # False some Pokemon not found yet, True done
        self.tera_read: bool | None = None

    def view(self, battle, own_tera: bool = False) -> RequestView:
        """The pending request's view; ``own_tera``: our Pokemon's tera types are read from
        it into the battle (once), for a network that reads them (``model.own_tera``)."""
        view = RequestView.from_request(battle.last_request, self.brought)
        if own_tera:
            if not self.tera_read and view.side:
                self.tera_read = read_tera_types(battle, view.side)
        elif self.tera_read is not None:  # read before the seat was known: as poke-env left them
            for mon in battle.team.values():
                if not mon._terastallized:
                    mon._terastallized_type = None
            self.tera_read = None
        if self.brought is None and view.kind in ("move", "switch"):
            # The first request after team preview lists the side in the chosen order.
            self.brought = view.brought
        if "mega" in view.gimmick:
            self.could_mega = True
        return view


def read_tera_types(battle, side: list[dict]) -> bool:
    """Our Pokemon's tera types from a request's side entries (``teraType``), which
    poke-env does not read: without them the observation showed no tera type for our own
    Pokemon and its tera orders' rows were the plain ones (no tera STAB, Tera Blast
    Normal), and the analysis could not see what our tera does. Whether every entry's
    Pokemon was found (then the types are set for the battle: they never change). Champions
    requests carry no tera type: nothing is set there."""
    found = True
    for entry in side:
        t = entry.get("teraType")
        if not t:
            continue
        mon = battle.team.get(entry.get("ident", ""))
        if mon is None:
            found = False
        elif mon._terastallized_type is None:
            mon._terastallized_type = PokemonType.from_name(t)
    return found


def foe_alive(battle) -> tuple[bool, bool]:
    a, b = battle.opponent_active_pokemon
    return a is not None, b is not None


@dataclass
class Decision:
    kind: str  # "preview" or "turn"
    view: RequestView
    mask: np.ndarray  # bool (90,) or (2025,)
    obs: np.ndarray | None  # float32 (OBS_DIM,) when encoded
    only: int = -1  # with make_decision(forced=True): a turn's one legal joint order (obs not encoded)


_ENCODER = ObservationEncoder()


def make_decision(
    battle,
    ctx: BattleContext,
    encode: bool = True,
    out: np.ndarray | None = None,
    threat: bool = True,
    sheets: bool = True,
    forced: bool = False,
    own_tera: bool = False,
) -> Decision | None:
    """Observation + legality mask for the battle's pending request (None if it must wait).
    ``threat=False`` leaves the observation's threat block 0 (a network without
    ``model.threat`` never reads it; it costs ~0.04 ms a decision). ``sheets=False``
    encodes as if the foe's open sheet (``ctx.foe_sheet``) were not there: for a network
    without ``model.sheets``, which plays a battle with open sheets as it learnt without.
    ``forced=True``: a turn with one legal joint order (a forced switch to the last
    Pokemon standing, a locked move) is not encoded: its ``only`` is that order.
    ``own_tera=True``: our Pokemon's tera types are read from the request first, for a
    network with ``model.own_tera`` (off: poke-env's own state, as every network before
    encoder version 6 learnt, and ``model.own_tera``'s default)."""
    view = ctx.view(battle, own_tera)
    if view.kind == "wait":
        return None
    if view.kind == "preview":
        mask = preview_mask(view)
        kind = "preview"
    else:
        mask = joint_mask(view, foe_alive(battle))
        kind = "turn"
        if forced and np.count_nonzero(mask) == 1:
            return Decision(kind, view, mask, None, int(mask.argmax()))
    sheet = ctx.foe_sheet if sheets else None
    obs = _ENCODER.encode(battle, ctx.brought, view, out, threat=threat, foe_sheet=sheet) if encode else None
    return Decision(kind, view, mask, obs)


__all__ = ["BattleContext", "Decision", "OBS_DIM", "foe_alive", "make_decision", "read_tera_types"]
