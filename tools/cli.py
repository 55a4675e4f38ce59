"""What the tools share on their command line: one flag name for one thing, one default.

    -n/--battles     battles (per pair in a tournament)
    --out DIR        where a tool writes what it produces
    --backend, --servers, --concurrency
                     the fleet a tool starts: stream workers (or Showdown servers) and
                     battles at a time on each (default 2 × 24, as `reg_c`)
    --teams DIR      the team pool (default: the shipped pool); --p1-teams / --p2-teams
                     a pool directory or one team file for one side
    --format, --seed, --save-replays DIR

Every tool's description is its module docstring, every default is shown by ``--help``,
and bad input is one line on stderr and exit code 2 (:func:`bad_input`).
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from typing import NoReturn

FORMAT = "gen9vgc2023regc"
SERVERS = 2
CONCURRENCY = 24


class Formatter(argparse.ArgumentDefaultsHelpFormatter, argparse.RawDescriptionHelpFormatter):
    """Defaults shown (where there is one and the help does not already say it); the
    description (a module docstring) kept as written."""

    def _get_help_string(self, action):
        if action.default is None or action.default is False or "default" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that shows defaults (sub-commands' too: they are of this class)."""

    def __init__(self, *args, **kw):
        kw.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kw)


def parser(prog: str, doc: str | None) -> argparse.ArgumentParser:
    """A Parser whose description is the module docstring ``doc``."""
    return Parser(prog=prog, description=doc)


def subparsers(ap: argparse.ArgumentParser):
    return ap.add_subparsers(dest="cmd", required=True, parser_class=Parser)


def add_battles(ap, default: int | None, help: str = "battles to play") -> None:
    ap.add_argument("-n", "--battles", type=int, default=default, required=default is None, help=help)


def add_fleet(ap, servers: int = SERVERS, concurrency: int = CONCURRENCY, backend: bool = True) -> None:
    if backend:
        ap.add_argument(
            "--backend",
            choices=("stream", "server"),
            default="stream",
            help="stream: Showdown's simulator in worker processes; server: local Showdown servers",
        )
    ap.add_argument("--servers", type=int, default=servers, help="stream workers (or Showdown servers)")
    ap.add_argument("--concurrency", type=int, default=concurrency, help="battles at a time on each")


def add_teams(ap, sides: bool = False) -> None:
    ap.add_argument("--teams", default=None, help="team pool directory (default: the shipped pool)")
    if sides:
        ap.add_argument(
            "--p1-teams", default=None, help="side 1's teams: a pool directory or one team file (default: --teams)"
        )
        ap.add_argument(
            "--p2-teams", default=None, help="side 2's teams: a pool directory or one team file (default: --teams)"
        )


def add_format(ap) -> None:
    ap.add_argument("--format", default=FORMAT, help="Showdown format id")


def add_open_team_sheets(ap) -> None:
    ap.add_argument(
        "--open-team-sheets",
        action="store_true",
        help="both players accept open team sheets, so each sees the other's sheet (moves, item, ability, "
        "tera type) at team preview; the format must have Showdown's Open Team Sheets rule",
    )


def check_open_team_sheets(format_id: str, wanted: bool, key: str = "--open-team-sheets") -> None:
    """Bad input (exit 2) when open team sheets are asked of a format without the rule:
    its players would wait at team preview for sheets Showdown never sends."""
    if not wanted:
        return
    from league.showdown import ShowdownSetupError
    from league.showdown.formats import check_format, open_team_sheets_refusal

    try:
        why = open_team_sheets_refusal(check_format(format_id), key)
    except (ShowdownSetupError, ValueError) as e:  # ValueError: FormatError
        bad_input(str(e))
    if why:
        bad_input(why)


def add_seed(ap, help: str = "seeds team draws and sampling") -> None:
    ap.add_argument("--seed", type=int, default=0, help=help)


def add_out(ap, help: str, required: bool = False) -> None:
    ap.add_argument("--out", default=None, required=required, metavar="DIR", help=help)


def add_save_replays(ap) -> None:
    ap.add_argument(
        "--save-replays",
        default=None,
        metavar="DIR",
        help="write each battle's replay here (Showdown's HTML replay file, side 1's view)",
    )


def check_positive(**values: int) -> None:
    """Bad input (exit 2) unless every value is >= 1; names as the flags are spelt."""
    bad = [k for k, v in values.items() if v is not None and v < 1]
    if bad:
        bad_input(f"{', '.join(bad)} must be >= 1")


class Progress:
    """A progress bar on standard error for a long tool run, shown only on a terminal
    (piped or in a log, a tool prints its JSON alone). ``advance(done)`` sets the count;
    use as a context manager."""

    def __init__(self, total: int | None, what: str):
        self.bar = None
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn
            from rich.progress import Progress as RichProgress

            self.bar = RichProgress(
                TextColumn(what),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]}"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.task = self.bar.add_task(what, total=total, rate="")
        self.t0 = time.monotonic()

    def advance(self, done: int) -> None:
        if self.bar is not None:
            rate = done / max(time.monotonic() - self.t0, 1e-6)
            self.bar.update(self.task, completed=done, rate=f"{rate:.1f}/s")

    def __enter__(self) -> Progress:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()


def bad_input(text: str) -> NoReturn:
    print(f"error: {text}", file=sys.stderr)
    raise SystemExit(2)


def load_pool(repo, format_id: str, path: str | None) -> list:
    """Validated teams of a pool directory, of one team file, or (None) the shipped pool."""
    from pathlib import Path

    if path is not None and Path(path).is_file():
        return repo.load_file(format_id, path)
    return repo.load(format_id, path)


def format_pool(format_id: str, pool_dir: str | None) -> list[str]:
    """The packed teams of the pool directory ``pool_dir`` (None: the pool shipped for the
    format), checked as ``TeamRepository.load`` checks them: the format first, against
    Showdown's own format list, then every team by Showdown's validator for it. A bad
    format, pool or Showdown install is bad input (exit 2), before anything starts."""
    from league.showdown import ShowdownSetupError, locate_showdown
    from league.teams import TeamPoolError, TeamRepository

    try:
        return [t.packed for t in TeamRepository(locate_showdown()).load(format_id, pool_dir)]
    except (ShowdownSetupError, TeamPoolError, ValueError) as e:  # ValueError: FormatError
        bad_input(str(e))


def side_pools(repo, args) -> tuple[list[str], list[str]]:
    """The two sides' packed teams: ``--p1-teams`` / ``--p2-teams``, each defaulting to
    ``--teams`` (validated once per distinct source)."""
    cache: dict[str | None, list[str]] = {}

    def pool(path: str | None) -> list[str]:
        if path not in cache:
            cache[path] = [t.packed for t in load_pool(repo, args.format, path)]
        return cache[path]

    return pool(args.p1_teams or args.teams), pool(args.p2_teams or args.teams)


def _sigterm(*_) -> NoReturn:
    raise SystemExit(143)


def exit_on_sigterm() -> None:
    """SIGTERM ends this tool as Ctrl-C would, through its ``finally`` and ``except``
    clauses (its fleet and any child run stopped), with exit status 143."""
    signal.signal(signal.SIGTERM, _sigterm)
