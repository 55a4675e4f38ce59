"""Behaviour cloning from Showdown battle logs.

    python -m tools.bc generate -n N --out LOG_DIR [--servers K] [--teams DIR] [--concurrency C]
    python -m tools.bc parse LOG_DIR [--out DATA_DIR]
    python -m tools.bc train DATA_DIR --out OUT_DIR [--epochs E] [--model-size small|default]

generate: plays maxdamage vs maxdamage (40 %), maxdamage vs random (30 %) and mixed
(epsilon-maxdamage, 30 %) Reg C battles on a fresh fleet and writes one log per battle
(league/bc/record.py: Showdown's protocol as each side saw it, with its choices).
parse: replays every log from each side into trajectories (league/bc/dataset.py);
malformed logs are reported with file and line and skipped. train: supervised
training of the RL network (league/bc/train.py); DATA_DIR may be a log directory (it is
parsed into DATA_DIR/dataset first, reused while the number of logs is the same). Last stdout line of each: JSON (train: ``top1``,
``uniform_top1``, ``decisions``, ``checkpoint``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

MIX = (("maxdamage", "maxdamage", 0.4), ("maxdamage", "random", 0.3), ("mixed", "mixed", 0.3))


def generate(n: int, out: Path, servers: int, teams_dir: str | None, concurrency: int, seed: int) -> dict:
    from league.bc.record import RECORDERS, write_battle_logs
    from league.match import play_matches
    from league.showdown import ShowdownFleet, locate_showdown
    from league.teams import TeamRepository

    install = locate_showdown()
    teams = [t.packed for t in TeamRepository(install).load("gen9vgc2023regc", teams_dir)]
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    written, errors, counts = 0, 0, {}
    with tempfile.TemporaryDirectory(prefix="bc-generate-") as tmp, ShowdownFleet(servers, tmp, install=install) as fleet:
        for k, (a, b, share) in enumerate(MIX):
            m = round(n * share) if k < len(MIX) - 1 else n - sum(round(n * s) for *_, s in MIX[:-1])
            players: list = []

            def factory(cls):
                def make(**kw):
                    p = cls(**kw)
                    players.append(p)
                    return p
                return make

            r = asyncio.run(play_matches(fleet, factory(RECORDERS[a]), factory(RECORDERS[b]), m, teams, teams,
                                         concurrency=concurrency, seed=seed + k))
            got = write_battle_logs(out, players, "gen9vgc2023regc")
            written += got
            errors += r.showdown_errors
            counts[f"{a}-vs-{b}"] = got
            print(f"{a} vs {b}: {got} logs ({r.battles} battles, {r.unfinished} unfinished)", flush=True)
    return {"logs": written, "by_matchup": counts, "showdown_errors": errors, "out": str(out),
            "wall_s": round(time.monotonic() - t0, 1)}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(prog="python -m tools.bc", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("-n", type=int, required=True)
    g.add_argument("--out", required=True)
    g.add_argument("--servers", type=int, default=2)
    g.add_argument("--concurrency", type=int, default=16)
    g.add_argument("--teams", default=None)
    g.add_argument("--seed", type=int, default=0)
    p = sub.add_parser("parse")
    p.add_argument("log_dir")
    p.add_argument("--out", default=None)
    t = sub.add_parser("train")
    t.add_argument("data_dir")
    t.add_argument("--out", required=True)
    t.add_argument("--epochs", type=int, default=4)
    t.add_argument("--batch", type=int, default=32)
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--model-size", choices=("small", "default"), default="default",
                   help="default: the RL model's default sizes (so run.init_checkpoint fits reg_c)")
    t.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    from league.bc.dataset import LogError, build_dataset

    def err(msg: str) -> None:
        print(msg, file=sys.stderr)

    if args.cmd == "generate":
        if args.n < 1:
            sys.exit("error: -n must be >= 1")
        out = generate(args.n, Path(args.out), args.servers, args.teams, args.concurrency, args.seed)
    elif args.cmd == "parse":
        try:
            m = build_dataset(args.log_dir, args.out or Path(args.log_dir) / "dataset", on_error=err)
        except LogError as e:
            sys.exit(f"error: {e}")
        out = {k: m[k] for k in ("logs", "battles", "trajectories", "decisions")} | {"errors": len(m["errors"])}
    else:
        from league.bc.train import BCConfig, train_bc
        from league.model.net import ModelConfig

        data = Path(args.data_dir)
        cached = data / "dataset" / "manifest.json"
        if cached.exists() and json.loads(cached.read_text())["logs"] == len(list(data.glob("*.log"))):
            data = data / "dataset"  # parsed before: same logs
        if not (data / "manifest.json").exists():
            try:
                m = build_dataset(data, data / "dataset", on_error=err)
            except LogError as e:
                sys.exit(f"error: {e}")
            print(f"parsed {m['battles']} battles ({m['decisions']} decisions, {len(m['errors'])} skipped)", flush=True)
            data = data / "dataset"
        mc = ModelConfig(mon_dim=32, torso_dim=64, core_dim=64) if args.model_size == "small" else ModelConfig()
        cfg = BCConfig(epochs=args.epochs, batch_trajectories=args.batch, lr=args.lr, seed=args.seed)
        out = train_bc(data, args.out, mc, cfg)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
