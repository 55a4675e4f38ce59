"""Connect a trained agent to a Pokemon Showdown server: accept challenges, challenge a user, or ladder.

    python -m tools.play --agent agent:regc --user NAME --accept N [--server URL] [--password-file F]
    python -m tools.play --agent SPEC --user NAME --challenge USER [-n N] [--server URL] [--password-file F]
    python -m tools.play --agent SPEC --user NAME --ladder N --server URL [--password-file F]

SPEC is checkpoint:PATH (a league, BC or exported checkpoint), agent:NAME (shipped in
league/agents/NAME.pt), random or maxdamage; --greedy plays a network's arg-max. --server
is a Showdown websocket URL (ws:// or wss://, e.g. wss://sim3.psim.us/showdown/websocket);
without it a local Showdown server is started on 127.0.0.1 (no login security) and its URL
printed. With --password-file (the password alone in a file) the name is logged in through
the login server (--login-server, Showdown's action.php); without one an unregistered name
is; --login-server none asks no login server (a server without login security). Teams:
--team FILE (one PokePaste team) or --teams DIR (one drawn per battle; default: the shipped
pool), all validated by Showdown's validator before connecting.

A dropped connection is reconnected and the battles rejoined; the battle timer is turned on
(--no-timer: not); a decision not made within --move-deadline seconds is a legal one drawn at
random. Each finished battle prints a line; the last stdout line is JSON: wins, losses, ties,
errors (battles asked for that gave no result: declined or never-started challenges, a
connection lost for good, a battle forfeited after --battle-timeout s without a message;
wins + losses + ties + errors = N), showdown_errors (|error| messages received),
reconnects, rejoined_battles, late_decisions, unplayed (why), wall_s. Exit code 0 when
errors is 0, 1 otherwise, 2 for bad input or a refused login (nothing played).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import random
import re
import signal
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from tools import cli

FORMAT = cli.FORMAT
LOGIN_URL = "https://play.pokemonshowdown.com/action.php?"


class BadInput(ValueError):
    pass


def parse_args(argv=None) -> argparse.Namespace:
    ap = cli.parser("python -m tools.play", __doc__)
    ap.add_argument(
        "--agent", required=True, metavar="SPEC", help="checkpoint:PATH | agent:NAME | random | maxdamage | heuristic"
    )
    ap.add_argument("--greedy", action="store_true", help="a network plays its most likely action")
    ap.add_argument(
        "--server",
        metavar="URL",
        default=None,
        help="Showdown websocket URL, ws://... or wss://... (default: start a local server)",
    )
    ap.add_argument(
        "--login-server",
        metavar="URL",
        default=LOGIN_URL,
        help="login server (action.php) for --server; 'none': the server has no login security",
    )
    ap.add_argument("--user", required=True, metavar="NAME", help="the name to play under")
    ap.add_argument("--password-file", metavar="F", default=None, help="file holding the name's password")
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--accept", type=int, metavar="N", help="accept N challenges (from anyone, in --format)")
    mode.add_argument("--challenge", metavar="USER", help="challenge USER -n times")
    mode.add_argument("--ladder", type=int, metavar="N", help="play N ladder battles")
    ap.add_argument("-n", "--battles", type=int, default=1, metavar="N", help="battles for --challenge")
    teams = ap.add_mutually_exclusive_group()
    teams.add_argument("--team", metavar="FILE", default=None, help="one team (PokePaste)")
    teams.add_argument("--teams", metavar="DIR", default=None, help="team pool directory (default: shipped pool)")
    cli.add_format(ap)
    ap.add_argument("--concurrency", type=int, default=1, metavar="C", help="battles at once")
    ap.add_argument(
        "--timer",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="turn the battle timer on at the start of each battle",
    )
    ap.add_argument(
        "--move-deadline",
        type=float,
        default=10.0,
        metavar="S",
        help="seconds for a decision before a random legal one is sent",
    )
    ap.add_argument(
        "--wait",
        type=float,
        default=600.0,
        metavar="S",
        help="seconds to wait for each challenge (--accept), acceptance (--challenge) or match (--ladder); 0: forever",
    )
    ap.add_argument(
        "--reconnect-s", type=float, default=120.0, metavar="S", help="how long to try to reconnect after a drop"
    )
    ap.add_argument(
        "--battle-timeout",
        type=float,
        default=900.0,
        metavar="S",
        help="forfeit a battle with no message for this long (0: never)",
    )
    ap.add_argument("--out", default=None, metavar="DIR", help="local server logs (default: runs/play/<time>)")
    cli.add_seed(ap)
    ap.add_argument("-v", "--verbose", action="store_true", help="log connection and battle events")
    return ap.parse_args(argv)


def websocket_url(url: str) -> str:
    """A ws:// or wss:// URL with a host; an empty path becomes Showdown's /showdown/websocket."""
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.hostname:
        raise BadInput(
            f"--server {url!r} is not a websocket URL: give ws://HOST:PORT/showdown/websocket or "
            "wss://HOST/showdown/websocket (e.g. wss://sim3.psim.us/showdown/websocket)"
        )
    if parts.path in ("", "/"):
        parts = parts._replace(path="/showdown/websocket")
    return urlunsplit(parts)


def check_inputs(args: argparse.Namespace) -> tuple[str | None, str | None, str | None]:
    """Everything that needs no file loading: the server URL, the login URL (None: ask no
    login server) and the password (None: none)."""
    if args.accept is not None and args.accept < 1 or args.ladder is not None and args.ladder < 1:
        raise BadInput("--accept and --ladder need N >= 1")
    if args.battles < 1 or args.concurrency < 1:
        raise BadInput("-n and --concurrency must be >= 1")
    if args.battles != 1 and args.challenge is None:
        raise BadInput("-n is the number of battles for --challenge; --accept N and --ladder N take theirs")
    if args.move_deadline <= 0 or args.wait < 0 or args.reconnect_s < 0 or args.battle_timeout < 0:
        raise BadInput("--move-deadline must be > 0; --wait, --reconnect-s and --battle-timeout >= 0")
    from poke_env.data import to_id_str

    if not 1 <= len(args.user) <= 18 or not to_id_str(args.user) or re.search(r"[,|]", args.user):
        raise BadInput(
            f"--user {args.user!r}: a Showdown name is 1 to 18 characters, with a letter or digit, without ',' or '|'"
        )
    if args.challenge is not None and to_id_str(args.challenge) == to_id_str(args.user):
        raise BadInput("--challenge names --user itself: challenge another user")
    url = websocket_url(args.server) if args.server is not None else None
    login = args.login_server
    if login.lower() == "none":
        login = None
    elif urlsplit(login).scheme not in ("http", "https") or not urlsplit(login).hostname:
        raise BadInput(f"--login-server {login!r} is not an http(s) URL (or 'none')")
    password = None
    if args.password_file is not None:
        f = Path(args.password_file)
        try:
            password = f.read_text(encoding="utf-8").rstrip("\r\n")
        except (OSError, UnicodeDecodeError) as e:
            raise BadInput(
                f"--password-file {f}: cannot read it ({e.strerror if isinstance(e, OSError) else e}); "
                "write the password alone in that file"
            ) from None
        if not password.strip():
            raise BadInput(f"--password-file {f} is empty: write the password alone in it")
        if os.name == "posix" and f.stat().st_mode & 0o077:
            print(f"warning: {f} can be read by other users (chmod 600 {f})", file=sys.stderr)
        if url is None:
            print(
                "warning: --password-file is not used on the local server it starts (no login security)",
                file=sys.stderr,
            )
    if args.team is not None and not Path(args.team).is_file():
        raise BadInput(f"--team {args.team}: no such file (give one PokePaste team file)")
    if args.teams is not None and not Path(args.teams).is_dir():
        raise BadInput(f"--teams {args.teams}: no such directory (give a directory of PokePaste .txt files)")
    return url, login, password


def main(argv=None) -> dict:
    args = parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(asctime)s %(name)s %(levelname)s %(message)s"
    )
    from league.checkpoint import CheckpointError
    from league.play.online import OnlineMixin
    from league.players import PlayerSpecError
    from league.showdown import ShowdownFleet, ShowdownSetupError, ShowdownStartError, locate_showdown
    from league.showdown.formats import FormatError
    from league.specs import player_factory
    from league.teams import TeamPoolError, TeamRepository

    # ---- check everything before connecting
    try:
        url, login_url, password = check_inputs(args)
        make_player = player_factory(
            args.agent, args.seed, args.greedy, mixin=OnlineMixin, format_id=args.format, backend="server"
        )
        install = locate_showdown()
        repo = TeamRepository(install)
        teams = repo.load_file(args.format, args.team) if args.team else repo.load(args.format, args.teams)
    except (BadInput, PlayerSpecError, CheckpointError, ShowdownSetupError, FormatError, TeamPoolError) as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None

    n = args.accept or args.ladder or args.battles
    mode = "accept" if args.accept else "ladder" if args.ladder else "challenge"
    out: dict = {"agent": args.agent, "user": args.user, "server": url, "format": args.format, "mode": mode, "n": n}
    fleet = None
    t0 = time.monotonic()
    status = 0
    try:
        if url is None:
            run_dir = Path(args.out or f"runs/play/{time.strftime('%Y%m%d-%H%M%S')}")
            fleet = ShowdownFleet(1, run_dir, install=install).start()
            url, login_url = fleet.servers[0].url, None
            out["server"] = url
            print(f"local Showdown server at {url} (log: {fleet.servers[0].log_path})", file=sys.stderr, flush=True)
        status = asyncio.run(
            _play(args, make_player, [t.packed for t in teams], url, login_url, password, n, mode, out)
        )
    except ShowdownStartError as e:
        print(f"error: {e}", file=sys.stderr)
        raise SystemExit(2) from None
    except KeyboardInterrupt:
        status = 130
        out["interrupted"] = True
    finally:
        if fleet is not None:
            fleet.stop()
    if status == 2:
        raise SystemExit(2)
    if "wins" in out:
        missing = n - (out["wins"] + out["losses"] + out["ties"] + out["errors"])
        if missing > 0:  # interrupted: what was not played is not a result
            out["errors"] += missing
    out["wall_s"] = round(time.monotonic() - t0, 2)
    print(json.dumps(out), flush=True)
    if status == 0 and out.get("errors", 1):
        status = 1
    if status:
        raise SystemExit(status)
    return out


async def _play(
    args,
    make_player,
    packed: list[str],
    url: str,
    login_url: str | None,
    password: str | None,
    n: int,
    mode: str,
    out: dict,
) -> int:
    from poke_env import AccountConfiguration
    from poke_env.ps_client.server_configuration import ServerConfiguration

    from league.play.client import ConnectError, LoginError
    from league.players import PoolTeambuilder

    loop = asyncio.get_running_loop()
    main_task = asyncio.current_task()
    assert main_task is not None  # (this runs in the event loop's main task)
    loop.add_signal_handler(signal.SIGTERM, main_task.cancel)

    def report(rec: dict) -> None:
        print(f"{rec['result']:<5} {rec['battle']} vs {rec['opponent']} ({rec['turns']} turns)", flush=True)

    player = make_player(
        account_configuration=AccountConfiguration(args.user, password),
        battle_format=args.format,
        server_configuration=ServerConfiguration(url, login_url or LOGIN_URL),
        team=PoolTeambuilder.from_teams(packed, random.Random(args.seed)),
        log_level=logging.WARNING if args.verbose else logging.ERROR,
        login_url=login_url,
        reconnect_s=args.reconnect_s,
        move_deadline=args.move_deadline,
        battle_timeout=args.battle_timeout,
        timer=args.timer,
        concurrency=args.concurrency,
        on_result=report,
    )
    wait = args.wait or None
    try:
        try:
            await player.connect()
        except (LoginError, ConnectError) as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
        what = {
            "accept": f"accepting {n} challenge(s) in {args.format}",
            "challenge": f"challenging {args.challenge} {n} time(s) in {args.format}",
            "ladder": f"laddering {n} battle(s) in {args.format}",
        }[mode]
        print(f"logged in as {args.user} on {url}; {what}", file=sys.stderr, flush=True)
        if mode == "accept":
            await player.accept(n, wait)
        elif mode == "challenge":
            await player.challenge(args.challenge, n, wait)
        else:
            await player.ladder(n, wait)
        if player.failed is not None:
            print(f"error: {player.failed}", file=sys.stderr)
        return 0
    except asyncio.CancelledError:  # SIGTERM
        out["interrupted"] = True
        return 143
    finally:
        out.update(player.summary())
        await player.close()


if __name__ == "__main__":
    main()
