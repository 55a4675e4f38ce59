"""Make a pool of teams legal in a format from Showdown's own random-battle sets.

    python -m tools.teams generate --out DIR [-n 300] [--format F] [--seed 0]

Each Pokémon set is one of gen9randomdoublesbattle's (moves, ability, item, tera type,
spread) in Scarlet/Violet formats, one of gen9championsrandombattle's (stat points, mega
stones) in Pokémon Champions formats; levelled to 50 and checked alone by the format's
validator. Teams are drawn from the legal sets (one species per dex number, items made
distinct) and each is validated whole. Deterministic in --seed for one Showdown version.
Writes DIR/gen-NNNN.txt (PokePaste, atomically); last line: JSON with `out`, `teams`,
`species`. `showdown.generated_teams=N` adds such teams to a run's training pool.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tools import cli


def main(argv: list[str] | None = None) -> int:
    ap = cli.parser("python -m tools.teams", __doc__)
    sub = cli.subparsers(ap)
    g = sub.add_parser("generate", help="write N generated teams to --out")
    cli.add_battles(g, 300, help="teams to make")
    cli.add_format(g)
    cli.add_seed(g, help="seeds the sets and the draws")
    cli.add_out(g, "the pool directory to write (created; gen-NNNN.txt files in it are replaced)", required=True)
    args = ap.parse_args(argv)
    cli.check_positive(**{"-n": args.battles})
    from league.atomic import atomic_write_text
    from league.showdown import ShowdownSetupError, locate_showdown
    from league.showdown.formats import check_format
    from league.teams.repo import TeamPoolError, generate_texts

    try:
        install = locate_showdown()
        check_format(args.format, install)
        made = generate_texts(args.format, args.battles, args.seed, install)
    except (ShowdownSetupError, TeamPoolError, ValueError) as e:  # ValueError: FormatError
        cli.bad_input(str(e))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    species: set[str] = set()
    for i, (text, packed) in enumerate(made):
        atomic_write_text(out / f"gen-{i:04d}.txt", text)
        species.update(p.split("|")[1] or p.split("|")[0] for p in packed.split("]"))
    print(json.dumps({"out": str(out), "teams": len(made), "species": len(species), "format": args.format}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
