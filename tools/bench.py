"""Benchmarks that print figures (never asserted in tests).

    python -m tools.bench encode [--battles 20] [--teams DIR] [--repeat 3]
    python -m tools.bench e2e [--seconds 120] [--servers 2] [--concurrency 24]

`e2e` measures, in one command and one after the other on identical fleets (same
server count, concurrency and team pool), random-vs-random battles/s and the battles/s
of a real training run (`league.run +experiment=reg_c`: batched inference, learner
process on, evaluation games included). Both rates are steady-state (first finished
battle to the end). Last stdout line: JSON with `train_battles_per_s`,
`random_battles_per_s`, `ratio`.

`encode` plays random-vs-random battles on a one-server fleet while recording both
sides' protocol, replays the recordings offline into fresh poke-env battles, and
times, at every decision point, the observation encoder and the legality mask
(request view + joint or team-preview mask) separately; the encoder's per-action parts
(league/battle/analysis.py: speeds, what each move/target/tera order and each switch
would do) are also timed on their own (`actions_ms_median`, included in
`encode_ms_median`). It then times the model's batched forward on CPU over those
states (`forward_ms_per_16`: one forward of 16 decisions, T=1, as the simulator acts).
Last stdout line: JSON with `states`, `encode_ms_median`, `actions_ms_median`,
`mask_ms_median`, p90s, the sum of medians and `forward_ms_per_16`.
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
    from league.battle.actions import JOINT_ACTIONS, joint_mask, preview_mask
    from league.battle.analysis import TurnAnalysis, analyse_moves, analyse_switches
    from league.battle.context import foe_alive
    from league.battle.obs import OBS_DIM, ObservationEncoder, move_vocab_id, split
    from league.battle.replay import replay

    enc = ObservationEncoder()
    buf = np.zeros(OBS_DIM, dtype=np.float32)
    parts = split(np.zeros(OBS_DIM, dtype=np.float32))
    enc_ms: list[float] = []
    act_ms: list[float] = []
    mask_ms: list[float] = []
    samples: list[tuple[np.ndarray, np.ndarray, bool]] = []
    pc = time.perf_counter_ns
    for username, lines in recordings:
        for battle, ctx in replay(lines, username):
            for r in range(repeat):
                t0 = pc()
                view = ctx.view(battle)
                if view.kind == "preview":
                    mask = preview_mask(view)
                else:
                    mask = joint_mask(view, foe_alive(battle))
                t1 = pc()
                enc.encode(battle, ctx.brought, view, buf)
                t2 = pc()
                if view.kind in ("move", "switch"):
                    for p in ("act_ids", "act_move", "act_target", "switch"):
                        parts[p].fill(0.0)
                    ta = TurnAnalysis(battle)
                    analyse_moves(battle, view, parts["act_ids"], parts["act_move"], parts["act_target"], move_vocab_id, ta)
                    analyse_switches(battle, ctx.brought, parts["switch"], ta)
                    act_ms.append((pc() - t2) / 1e6)
                mask_ms.append((t1 - t0) / 1e6)
                enc_ms.append((t2 - t1) / 1e6)
                if r == 0:
                    full = np.zeros(JOINT_ACTIONS, dtype=bool)
                    full[: len(mask)] = mask
                    samples.append((buf.copy(), full, view.kind == "preview"))
    em, mm, am = statistics.median(enc_ms), statistics.median(mask_ms), statistics.median(act_ms)
    return {
        "states": len(enc_ms) // repeat,
        "encode_ms_median": round(em, 4),
        "actions_ms_median": round(am, 4),
        "mask_ms_median": round(mm, 4),
        "encode_ms_p90": round(_percentile(enc_ms, 90), 4),
        "mask_ms_p90": round(_percentile(mask_ms, 90), 4),
        "sum_of_medians_ms": round(em + mm, 4),
        **bench_forward(samples),
    }


def bench_forward(samples, batch: int = 16, rounds: int = 30) -> dict:
    """Median ms of one batched forward (T=1, ``batch`` decisions) of the default model on CPU."""
    import torch

    from league.model.net import PolicyValueNet

    net = PolicyValueNet().eval()
    idx = np.arange(len(samples))
    rng = np.random.default_rng(0)
    times = []
    with torch.no_grad():
        for r in range(rounds + 3):
            pick = rng.choice(idx, size=batch)
            obs = torch.from_numpy(np.stack([samples[i][0] for i in pick]))[None]
            mask = torch.from_numpy(np.stack([samples[i][1] for i in pick]))[None]
            prev = torch.tensor([samples[i][2] for i in pick])[None]
            t0 = time.perf_counter()
            net(obs, mask, prev, net.initial_state(batch))
            if r >= 3:  # warm-up
                times.append((time.perf_counter() - t0) * 1e3)
    return {"forward_ms_per_16": round(statistics.median(times), 3), "torch_threads": torch.get_num_threads()}


def bench_random(seconds: float, servers: int, concurrency: int, teams_dir: str | None) -> float:
    from league.match import play_matches
    from league.players import RandomPlayer
    from league.showdown import ShowdownFleet, locate_showdown
    from league.teams import TeamRepository

    install = locate_showdown()
    teams = [t.packed for t in TeamRepository(install).load("gen9vgc2023regc", teams_dir)]
    players: list = []

    def factory(**kw):
        players.append(RandomPlayer(**kw))
        return players[-1]

    async def go() -> float:
        stop = asyncio.Event()
        task = asyncio.ensure_future(
            play_matches(fleet, factory, factory, None, teams, teams, concurrency=concurrency, stop=stop)
        )
        t_first = None
        n_first = 0
        while t_first is None:
            await asyncio.sleep(0.2)
            n = sum(p.n_finished for p in players) // 2
            if n > 0:
                t_first, n_first = time.monotonic(), n
        await asyncio.sleep(seconds)
        n_end, t_end = sum(p.n_finished for p in players) // 2, time.monotonic()
        stop.set()
        await task
        return (n_end - n_first) / (t_end - t_first)

    with tempfile.TemporaryDirectory() as d, ShowdownFleet(servers, d, install=install) as fleet:
        return asyncio.run(go())


def bench_train(seconds: float, servers: int, concurrency: int, teams_dir: str | None) -> dict:
    import subprocess

    with tempfile.TemporaryDirectory() as d:
        args = [sys.executable, "-m", "league.run", "+experiment=reg_c", f"hydra.run.dir={d}",
                f"run.max_minutes={seconds / 60 + 0.25}", f"sim.servers={servers}", f"sim.concurrency={concurrency}"]
        if teams_dir:
            args.append(f"showdown.teams={teams_dir}")
        out = subprocess.run(args, capture_output=True, text=True, timeout=seconds + 300)
        if out.returncode != 0:
            raise SystemExit(f"training run failed:\n{out.stderr[-3000:]}")
        return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m tools.bench")
    sub = ap.add_subparsers(dest="cmd", required=True)
    e = sub.add_parser("encode", help="time the observation encoder and legality masks on recorded play")
    e.add_argument("--battles", type=int, default=20)
    e.add_argument("--teams", default=None)
    e.add_argument("--repeat", type=int, default=3)
    e.add_argument("--save", default=None, help="also write the recordings (JSON) here")
    e2e = sub.add_parser("e2e", help="training battles/s next to random-vs-random battles/s")
    e2e.add_argument("--seconds", type=float, default=120.0)
    e2e.add_argument("--servers", type=int, default=2)
    e2e.add_argument("--concurrency", type=int, default=24)
    e2e.add_argument("--teams", default=None)
    args = ap.parse_args(argv)
    if args.cmd == "e2e":
        rnd = bench_random(args.seconds, args.servers, args.concurrency, args.teams)
        train = bench_train(args.seconds, args.servers, args.concurrency, args.teams)
        out = {
            "servers": args.servers,
            "concurrency": args.concurrency,
            "random_battles_per_s": round(rnd, 3),
            "train_battles_per_s": train["battles_per_s"],
            "ratio": round(train["battles_per_s"] / rnd, 3) if rnd else None,
            "train_updates": train["updates"],
            "train_showdown_errors": train["showdown_errors"],
        }
        print(json.dumps(out))
        return out
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
