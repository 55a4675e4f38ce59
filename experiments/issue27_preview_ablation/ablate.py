"""tools.battle with p1's team preview replaced (issue 27: how much of the agent's play is
its team preview?).

    PREVIEW=maxdamage|heuristic|random|net python experiments/issue27_preview_ablation/ablate.py TOOLS.BATTLE ARGS

p1 (a network SPEC) still runs its network on the preview (so its recurrent state sees the
preview as in training) and then brings what PREVIEW picks: `maxdamage` (the four with the
best offence + speed, the best two leading), `heuristic` (those scores plus type matchup),
`random` (uniform over the legal picks), `net` (its own pick: the control).
"""

from __future__ import annotations

import os
import random
import sys

from league.players.base import sample_legal
from league.players.heuristic import heuristic_preview
from league.players.maxdamage import maxdamage_preview
from tools import battle as battle_tool

KIND = os.environ.get("PREVIEW", "net")
PICK = {
    "maxdamage": lambda b, d, rng: maxdamage_preview(b, d),
    "heuristic": lambda b, d, rng: heuristic_preview(b, d),
    "random": lambda b, d, rng: sample_legal(d.mask, rng),
}


class PreviewMixin:
    async def choose_preview(self, battle, decision):
        own = await self._decide(battle, decision, True)
        if KIND == "net":
            return own
        if not hasattr(self, "_preview_rng"):
            self._preview_rng = random.Random(f"preview|{self.username}")
        return PICK[KIND](battle, decision, self._preview_rng)


_factory = battle_tool.player_factory
_calls = []


def patched(spec, *a, **kw):
    _calls.append(spec)
    if len(_calls) == 1:  # p1
        kw["mixin"] = PreviewMixin
    return _factory(spec, *a, **kw)


if KIND not in ("net", *PICK):
    sys.exit(f"PREVIEW={KIND!r}: one of net, maxdamage, heuristic, random")
battle_tool.player_factory = patched
if __name__ == "__main__":
    out = battle_tool.main()
