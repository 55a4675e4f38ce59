"""Regenerate league/population/probe_battles.json.gz (the diversity probe's states,
league/population/diversity.py) from battle logs written by ``tools.bc generate``:

    python -m tools.bc generate -n 24 --p1 mixed --p2 mixed --seed 17 --servers 1 --concurrency 4 --out LOGS
    python -m tools.gen_probe LOGS

Both sides of every ``*.log`` in LOGS are kept (their protocol lines, the ``|choose|``
lines left out); prints the number of sides.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from league.atomic import atomic_write_bytes
from league.bc.dataset import LogError, split_sides
from league.population.diversity import PROBE_PATH


def write_probe(log_dir: str | Path, dest: str | Path = PROBE_PATH) -> int:
    """Store both sides of every battle log in ``log_dir`` (league/bc/record.py's
    format) as the probe set; returns the number of sides."""
    sides = []
    for path in sorted(Path(log_dir).glob("*.log")):
        _, found = split_sides(path, path.read_text())
        for user, _policy, _line, lines in found:
            sides.append({"username": user, "lines": [x for x in lines if x and not x.startswith("|choose|")]})
    data = gzip.compress(json.dumps({"sides": sides}, separators=(",", ":")).encode(), mtime=0)
    atomic_write_bytes(dest, data)
    return len(sides)


def main(argv=None) -> None:
    from tools import cli

    ap = cli.parser("python -m tools.gen_probe", __doc__)
    ap.add_argument("logs", metavar="LOGS", help="a directory of battle logs (tools.bc generate --out)")
    args = ap.parse_args(argv)
    if not Path(args.logs).is_dir() or not any(Path(args.logs).glob("*.log")):
        cli.bad_input(f"{args.logs}: not a directory of battle logs (*.log)")
    try:
        n = write_probe(args.logs)
    except LogError as e:  # nothing written
        cli.bad_input(str(e))
    print({"sides": n, "out": str(PROBE_PATH)})


if __name__ == "__main__":
    main()
