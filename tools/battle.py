"""Play battles between two players on fresh Showdown workers (or local servers).

    python -m tools.battle --p1 maxdamage --p2 random -n 200 [--teams DIR] [--servers K] [--concurrency C] [--backend stream|server]
    python -m tools.battle --p1 agent:regc --p2 maxdamage --p1-teams my_team.txt -n 50 --save-replays replays/

SPEC is `random`, `maxdamage`, `heuristic`, `checkpoint:PATH` (a league, BC or exported checkpoint),
`agent:NAME` (a shipped agent, league/agents/NAME.pt) or `search:SPEC` (that network looking
one turn ahead before each move, on the stream backend only: league/players/search.py,
`--search-k/--search-samples/--search-prior/--search-foe-spread`); a network policy samples from
the masked distribution, `--greedy` takes the arg-max. Teams are drawn per battle, for each side, from the
pool directory (default: the pool shipped in league/teams/default), or from a side's own
pool or single team (`--p1-teams`, `--p2-teams`: a directory or one PokePaste file). Every team is
validated by Showdown before the fleet starts. The last stdout line is one JSON
object: battles, p1_wins, p2_wins, ties, p1_win_rate, ci95 [low, high] (Wilson),
battles_per_s, decisions_per_s (both players), showdown_errors (|error| messages
received, less the unavailable choices), unavailable_choices ([Unavailable choice]: a
choice hidden information forbade, e.g. a move the foe's Imprison disabled; Showdown
asks again and the player chooses anew), unfinished (battles lost to a server crash or stall; battles + unfinished
= n), server_restarts, p1_megas / p2_megas (battles a side mega-evolved in, Champions
formats) and p1_mega_chances / p2_mega_chances (battles in which it could), for a
search player p1_search / p2_search (move requests searched, those where the look-ahead
changed the network's first choice, those it could not search), wall_s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import time
from pathlib import Path

from league.checkpoint import CheckpointError
from league.match import play_matches
from league.players import PlayerSpecError
from league.players.base import LeaguePlayer
from league.showdown import ShowdownSetupError, locate_showdown, make_fleet
from league.specs import player_factory
from league.teams import TeamPoolError, TeamRepository
from tools import cli


def replays_to(make_player, folder: str):
    """Players that write each finished battle's replay (poke-env's HTML replay, their
    view) into ``folder``."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    return lambda **kw: make_player(save_replays=folder, **kw)


def parse_args(argv=None) -> argparse.Namespace:
    ap = cli.parser("python -m tools.battle", __doc__)
    ap.add_argument(
        "--p1",
        required=True,
        help="player SPEC: random | maxdamage | heuristic | checkpoint:PATH | agent:NAME | search:SPEC",
    )
    ap.add_argument(
        "--p2",
        required=True,
        help="player SPEC: random | maxdamage | heuristic | checkpoint:PATH | agent:NAME | search:SPEC",
    )
    ap.add_argument("--greedy", action="store_true", help="network players take the most likely action")
    ap.add_argument(
        "--forced-by-network",
        action="store_true",
        help="turns with one legal joint order go through the network too (as before 2026-12-07; "
        "by default they are answered with it, as sim.answer_forced does in training)",
    )
    ap.add_argument(
        "--search-k", type=int, default=None, help="search:SPEC players: candidates a move request (default 16)"
    )
    ap.add_argument(
        "--search-samples", type=int, default=None, help="search:SPEC players: rolls per candidate (default 2)"
    )
    ap.add_argument(
        "--search-prior",
        type=float,
        default=None,
        help="search:SPEC players: weight of the network's log-probability beside the look-ahead's value",
    )
    ap.add_argument(
        "--search-foe-spread",
        choices=["exact", "even"],
        default=None,
        help="search:SPEC players: the copies' foes get the even spread and shown HP share a player assumes "
        "(even, the default) or keep their own spread and exact HP (exact)",
    )
    cli.add_battles(ap, 100)
    cli.add_teams(ap, sides=True)
    cli.add_format(ap)
    cli.add_open_team_sheets(ap)
    cli.add_fleet(ap)
    cli.add_seed(ap)
    cli.add_save_replays(ap)
    cli.add_out(ap, "where worker or server logs go (default: runs/battle/<time>)")
    ap.add_argument(
        "--stall-timeout",
        type=float,
        default=120.0,
        help="a worker with no battle progressing this long: its battles in flight are dropped",
    )
    ap.add_argument("-v", "--verbose", action="store_true", help="log fleet and battle events")
    return ap.parse_args(argv)


def main(argv=None) -> dict:
    args = parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s"
    )
    cli.exit_on_sigterm()
    if args.forced_by_network:
        LeaguePlayer.answer_forced = False
    # ---- check everything before starting anything
    cli.check_positive(**{"-n": args.battles, "--servers": args.servers, "--concurrency": args.concurrency})
    search = {
        k: v
        for k, v in (
            ("k", args.search_k),
            ("samples", args.search_samples),
            ("prior", args.search_prior),
            ("foe_spread", args.search_foe_spread),
        )
        if v is not None
    }
    try:
        if search:  # SearchPlayer's own check, before any fleet starts
            from league.players.search import check_settings

            check_settings(**search)
        make_p1 = player_factory(
            args.p1, args.seed, args.greedy, format_id=args.format, backend=args.backend, search=search
        )
        make_p2 = player_factory(
            args.p2, args.seed + 1, args.greedy, format_id=args.format, backend=args.backend, search=search
        )
        install = locate_showdown()
        cli.check_open_team_sheets(args.format, args.open_team_sheets)
        teams1, teams2 = cli.side_pools(TeamRepository(install), args)
    except (PlayerSpecError, CheckpointError, ShowdownSetupError, TeamPoolError, ValueError) as e:
        cli.bad_input(str(e))
    run_dir = Path(args.out or f"runs/battle/{time.strftime('%Y%m%d-%H%M%S')}")
    if args.save_replays:
        make_p1 = replays_to(make_p1, args.save_replays)

    # ---- fleet up, play, fleet down
    with (
        make_fleet(args.backend, args.servers, run_dir, install=install) as fleet,
        cli.Progress(args.battles, "battles") as bar,
    ):
        result = asyncio.run(
            play_matches(
                fleet,
                make_p1,
                make_p2,
                args.battles,
                teams1,
                teams2,
                battle_format=args.format,
                concurrency=args.concurrency,
                seed=args.seed,
                stall_timeout=args.stall_timeout,
                on_progress=bar.advance,
                open_team_sheets=args.open_team_sheets,
            )
        )
    summary = {
        "p1": args.p1,
        "p2": args.p2,
        "format": args.format,
        "teams": len(set(teams1) | set(teams2)),
        "open_team_sheets": args.open_team_sheets,
        **result.summary(),
    }
    if args.save_replays:
        summary["replays"] = args.save_replays
    if result.error_examples:  # what Showdown said, in the JSON too (a run's record keeps it)
        summary["showdown_error_kinds"] = dict(result.error_kinds)
        summary["showdown_error_examples"] = result.error_examples[:10]
        print("showdown errors (first few):", *result.error_examples[:10], sep="\n  ", file=sys.stderr)
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
