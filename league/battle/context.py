"""Per-battle state the codec needs beyond poke-env's battle object, and the
one function that turns a battle into a decision (observation, mask, request view)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from league.battle.actions import RequestView, joint_mask, preview_mask
from league.battle.obs import OBS_DIM, ObservationEncoder


class BattleContext:
    """Remembers the brought four (team-preview order) for stable switch indices."""

    __slots__ = ("brought", "decisions", "line", "tag", "could_mega", "foe_sheet")

    def __init__(self, tag: str = "") -> None:
        self.tag = tag  # the battle's tag
        self.brought: list[str] | None = None
        self.decisions = 0
        self.could_mega = False  # a request of this battle offered Mega Evolution
        self.line = 0  # replay only: the line number of the request being answered
        # the foe's open team sheet (league.battle.sheets.foe_sets), when the battle has open
        # team sheets: the observation reads it (replays whose sheets are open)
        self.foe_sheet: dict | None = None

    def view(self, battle) -> RequestView:
        view = RequestView.from_request(battle.last_request, self.brought)
        if self.brought is None and view.kind in ("move", "switch"):
            # The first request after team preview lists the side in the chosen order.
            self.brought = view.brought
        if "mega" in view.gimmick:
            self.could_mega = True
        return view


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
) -> Decision | None:
    """Observation + legality mask for the battle's pending request (None if it must wait).
    ``threat=False`` leaves the observation's threat block 0 (a network without
    ``model.threat`` never reads it; it costs ~0.04 ms a decision). ``sheets=False``
    encodes as if the foe's open sheet (``ctx.foe_sheet``) were not there: for a network
    without ``model.sheets``, which plays a battle with open sheets as it learnt without.
    ``forced=True``: a turn with one legal joint order (a forced switch to the last
    Pokemon standing, a locked move) is not encoded: its ``only`` is that order."""
    view = ctx.view(battle)
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


__all__ = ["BattleContext", "Decision", "OBS_DIM", "foe_alive", "make_decision"]
