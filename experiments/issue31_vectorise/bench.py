"""Where a decision's encoding goes, part by part, and what numpy costs at its sizes
(issue 31 item 1). Replays the recorded battles of tests/data, snapshots the battle at
every decision, then times each part of the encoder on the snapshots (CPU time of this
thread, best of 5 passes) and the damage formula on the exact calls the analysis makes;
last, the cost of single numpy operations on an orders x targets grid. Prints JSON.

    python experiments/issue31_vectorise/bench.py
"""

from __future__ import annotations

import copy
import gzip
import json
import time
import timeit
from pathlib import Path

import numpy as np

from league.battle import analysis as A
from league.battle import obs as O
from league.battle.actions import joint_mask
from league.battle.context import foe_alive, make_decision
from league.battle.replay import replay

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"


def snapshots():
    recs = json.loads((DATA / "recorded_battles.json").read_text())
    recs += json.loads(gzip.decompress((DATA / "obs_identity_battles.json.gz").read_bytes()))
    return [(copy.deepcopy(b), copy.deepcopy(c)) for r in recs for b, c in replay(r["lines"], r["username"])]


def parts(snaps, out):
    t: dict[str, float] = {}

    def tm(k, f):
        t0 = time.thread_time()
        f()
        t[k] = t.get(k, 0.0) + time.thread_time() - t0

    for b, ctx in snaps:
        v = O.split(out)
        vw = ctx.view(b)
        tm("make_decision", lambda: make_decision(b, ctx))
        tm("request_view", lambda: ctx.view(b))
        ta = A.TurnAnalysis(b)
        tm("turn_analysis_fighters", lambda: A.TurnAnalysis(b))
        tm("own_rows", lambda: O._encode_own(b, b.team, ctx.brought, v, O.SV))
        rev = list(b._opponent_team.values())
        tm("foe_rows", lambda: O._encode_opponents(b, rev, v, O.SV, None))
        if vw.kind in ("move", "switch"):
            tm("mask", lambda: joint_mask(vw, foe_alive(b)))
            tm("switches", lambda: A.analyse_switches(b, ctx.brought, v["switch"], ta))
            tm("threats", lambda: A.analyse_threats(b, v["threat"], ta))
        if vw.kind == "move":
            tm(
                "moves",
                lambda: A.analyse_moves(b, vw, v["act_ids"], v["act_move"], v["act_target"], O.move_vocab_id, ta),
            )
    return t


def damage_calls(snaps, out):
    calls, orig = [], A.damage

    def rec(*a, **k):
        calls.append((a, k))
        return orig(*a, **k)

    A.damage = rec
    try:
        for b, ctx in snaps:
            v, vw, ta = O.split(out), ctx.view(b), A.TurnAnalysis(b)
            if vw.kind == "move":
                A.analyse_moves(b, vw, v["act_ids"], v["act_move"], v["act_target"], O.move_vocab_id, ta)
            if vw.kind in ("move", "switch"):
                A.analyse_threats(b, v["threat"], ta)
    finally:
        A.damage = orig
    best = float("inf")
    for _ in range(5):
        t0 = time.thread_time()
        for a, k in calls:
            orig(*a, **k)
        best = min(best, time.thread_time() - t0)
    return len(calls), best


def main() -> None:
    snaps = snapshots()
    out = np.zeros(O.OBS_DIM, np.float32)
    best: dict[str, float] = {}
    for _ in range(5):
        t = parts(snaps, out)
        best = t if not best else {k: min(best[k], t[k]) for k in t}
    n_calls, dmg_s = damage_calls(snaps, out)
    n = len(snaps)
    grid_a, grid_b = np.random.rand(2, 4, 5, 2), np.random.rand(2, 4, 5, 2)
    x, y, reps = 1.3, 2.7, 100_000
    ops = {
        "numpy_multiply_grid": timeit.timeit(lambda: grid_a * grid_b, number=reps) / reps,
        "numpy_minimum_grid": timeit.timeit(lambda: np.minimum(grid_a, grid_b), number=reps) / reps,
        "numpy_where_grid": timeit.timeit(lambda: np.where(grid_a > 0.5, grid_a, grid_b), number=reps) / reps,
        "python_float_multiply": timeit.timeit(lambda: x * y, number=reps) / reps,
    }
    print(
        json.dumps(
            {
                "decisions": n,
                "us_per_decision": {k: round(v / n * 1e6, 1) for k, v in best.items()},
                "damage_calls_per_decision": round(n_calls / n, 2),
                "us_per_damage_call": round(dmg_s / n_calls * 1e6, 2),
                "us_per_op": {k: round(v * 1e6, 3) for k, v in ops.items()},
            }
        )
    )


if __name__ == "__main__":
    main()
