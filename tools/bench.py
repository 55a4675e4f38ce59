"""Benchmarks that print figures (never asserted in tests).

    python -m tools.bench encode [--battles 20] [--teams DIR] [--repeat 3]

`encode` plays random-vs-random battles on a one-server fleet while recording both
sides' protocol, replays the recordings offline into fresh poke-env battles, and
times, at every decision point, the observation encoder and the legality mask
(request view + joint or team-preview mask) separately. Last stdout line: JSON with
`states`, `encode_ms_median`, `mask_ms_median`, p90s and the sum of medians.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def _percentile(xs: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(xs), q)) if xs else float("nan")


def record_battles(n_battles: int, teams_dir: str | None, seed: int = 0) -> list[tuple[str, list[str]]]:
    """Play random vs random on a fresh 1-server fleet; return (username, lines) per side per battle."""
    from league.battle.replay import RecordingMixin
    from league.match import play_matches
    from league.players import RandomPlayer
    from league.showdown import ShowdownFleet, locate_showdown
    from league.teams import TeamRepository

    class RecordingRandom(RecordingMixin, RandomPlayer):
        pass

    install = locate_showdown()
    teams = [t.packed for t in TeamRepository(install).load("gen9vgc2023regc", teams_dir)]
    players: list = []

    def factory(**kw):
        p = RecordingRandom(**kw)
        players.append(p)
        return p

    with tempfile.TemporaryDirectory() as d, ShowdownFleet(1, d, install=install) as fleet:
        asyncio.run(play_matches(fleet, factory, factory, n_battles, teams, teams, concurrency=8, seed=seed))
    out = []
    for p in players:
        for lines in p.recordings.values():
            out.append((p.username, lines))
    return out


def bench_encode(recordings, repeat: int = 3) -> dict:
    from league.battle.actions import joint_mask, preview_mask
    from league.battle.context import foe_alive
    from league.battle.obs import OBS_DIM, ObservationEncoder
    from league.battle.replay import replay

    enc = ObservationEncoder()
    buf = np.zeros(OBS_DIM, dtype=np.float32)
    enc_ms: list[float] = []
    mask_ms: list[float] = []
    pc = time.perf_counter_ns
    for username, lines in recordings:
        for battle, ctx in replay(lines, username):
            for _ in range(repeat):
                t0 = pc()
                view = ctx.view(battle)
                if view.kind == "preview":
                    preview_mask(view)
                else:
                    joint_mask(view, foe_alive(battle))
                t1 = pc()
                enc.encode(battle, ctx.brought, buf)
                t2 = pc()
                mask_ms.append((t1 - t0) / 1e6)
                enc_ms.append((t2 - t1) / 1e6)
    em, mm = statistics.median(enc_ms), statistics.median(mask_ms)
    return {
        "states": len(enc_ms) // repeat,
        "encode_ms_median": round(em, 4),
        "mask_ms_median": round(mm, 4),
        "encode_ms_p90": round(_percentile(enc_ms, 90), 4),
        "mask_ms_p90": round(_percentile(mask_ms, 90), 4),
        "sum_of_medians_ms": round(em + mm, 4),
    }


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m tools.bench")
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("encode", help="time the observation encoder and legality masks on recorded play")
    e.add_argument("--battles", type=int, default=20)
    e.add_argument("--teams", default=None)
    e.add_argument("--repeat", type=int, default=3)
    e.add_argument("--save", default=None, help="also write the recordings (JSON) here")
    args = ap.parse_args(argv)
    if args.cmd == "encode":
        recs = record_battles(args.battles, args.teams)
        if args.save:
            Path(args.save).write_text(json.dumps(recs))
        out = bench_encode(recs, args.repeat)
        print(json.dumps(out))
        return out
    raise SystemExit(f"unknown command {args.cmd}")  # pragma: no cover


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
