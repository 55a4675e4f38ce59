"""Play battles between two players on fresh Showdown workers (or local servers).

    python -m tools.battle --p1 maxdamage --p2 random -n 200 [--teams DIR] [--servers K] [--concurrency C] [--backend stream|server]

SPEC is `random`, `maxdamage`, `checkpoint:PATH` (a league, BC or exported checkpoint)
or `agent:NAME` (a shipped agent, league/agents/NAME.pt); a network policy samples from
the masked distribution, `--greedy` takes the arg-max. Teams are drawn per battle, for each side, from the
pool directory (default: the pool shipped in league/teams/default). Every team is
validated by Showdown before the fleet starts. The last stdout line is one JSON
object: battles, p1_wins, p2_wins, ties, p1_win_rate, ci95 [low, high] (Wilson),
battles_per_s, decisions_per_s (both players), showdown_errors (|error| messages
received), unfinished (battles lost to a server crash or stall; battles + unfinished
= n), server_restarts, wall_s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
import time
from pathlib import Path

from league.match import play_matches
from league.checkpoint import CheckpointError
from league.players import PlayerSpecError
from league.specs import player_factory
from league.showdown import BACKENDS, ShowdownSetupError, locate_showdown, make_fleet
from league.teams import TeamPoolError, TeamRepository


def _sigterm(*_):
    raise SystemExit(143)


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="python -m tools.battle", description=__doc__.split("\n\n")[0])
    ap.add_argument("--p1", required=True, help="player SPEC: random | maxdamage | checkpoint:PATH | agent:NAME")
    ap.add_argument("--p2", required=True, help="player SPEC: random | maxdamage | checkpoint:PATH | agent:NAME")
    ap.add_argument("--greedy", action="store_true", help="checkpoint players take the most likely action")
    ap.add_argument("-n", "--battles", type=int, default=100)
    ap.add_argument("--teams", default=None, help="team pool directory (default: shipped pool)")
    ap.add_argument("--format", default="gen9vgc2023regc")
    ap.add_argument("--backend", choices=BACKENDS, default="stream",
                    help="stream: Showdown's simulator in worker processes; server: local Showdown servers")
    ap.add_argument("--servers", type=int, default=1, help="servers (or stream workers)")
    ap.add_argument("--concurrency", type=int, default=32, help="concurrent battles per server")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--run-dir", default=None, help="where worker or server logs go (default runs/battle/<time>)")
    ap.add_argument("--stall-timeout", type=float, default=120.0)
    ap.add_argument("-v", "--verbose", action="store_true")
    return ap.parse_args(argv)


def main(argv=None) -> dict:
    args = parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    signal.signal(signal.SIGTERM, _sigterm)
    # ---- check everything before starting anything
    try:
        if args.battles < 1 or args.servers < 1 or args.concurrency < 1:
            raise ValueError("-n, --servers and --concurrency must be >= 1")
        make_p1 = player_factory(args.p1, args.seed, args.greedy)
        make_p2 = player_factory(args.p2, args.seed + 1, args.greedy)
        install = locate_showdown()
        teams = TeamRepository(install).load(args.format, args.teams)
    except (PlayerSpecError, CheckpointError, ShowdownSetupError, TeamPoolError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    packed = [t.packed for t in teams]
    run_dir = Path(args.run_dir or f"runs/battle/{time.strftime('%Y%m%d-%H%M%S')}")

    # ---- fleet up, play, fleet down
    with make_fleet(args.backend, args.servers, run_dir, install=install) as fleet:
        result = asyncio.run(
            play_matches(
                fleet,
                make_p1,
                make_p2,
                args.battles,
                packed,
                packed,
                battle_format=args.format,
                concurrency=args.concurrency,
                seed=args.seed,
                stall_timeout=args.stall_timeout,
            )
        )
    summary = {"p1": args.p1, "p2": args.p2, "format": args.format, "teams": len(teams), **result.summary()}
    if result.error_examples:
        print("showdown errors (first few):", *result.error_examples[:10], sep="\n  ", file=sys.stderr)
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
