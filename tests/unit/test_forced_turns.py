"""Turns with one legal joint order (sim.answer_forced): over every recorded decision,
``make_decision(forced=True)`` leaves exactly those unencoded, names their order, and
encodes every other decision to the same bytes as without it."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np

from league.battle.context import make_decision
from league.battle.replay import replay

DATA = Path(__file__).resolve().parents[1] / "data"


def test_only_turns_with_one_legal_order_are_answered_without_an_observation():
    recs = json.loads((DATA / "recorded_battles.json").read_text())
    recs += json.loads(gzip.decompress((DATA / "obs_identity_battles.json.gz").read_bytes()))
    seen = {"forced": 0, "chosen": 0}
    for rec in recs:
        for battle, ctx in replay(rec["lines"], rec["username"]):
            plain = make_decision(battle, ctx)
            d = make_decision(battle, ctx, forced=True)
            assert np.array_equal(d.mask, plain.mask) and d.kind == plain.kind
            legal = np.flatnonzero(plain.mask)
            if plain.kind == "turn" and len(legal) == 1:
                seen["forced"] += 1
                assert d.obs is None and d.only == legal[0]
            else:
                seen["chosen"] += 1
                assert d.only == -1 and d.obs.tobytes() == plain.obs.tobytes()
    # the recordings hold both kinds (22 of 356 decisions are forced in the Reg C ones)
    assert seen["forced"] >= 10 and seen["chosen"] >= 300, seen
