"""Regenerate league/battle/vocab.json from the installed Showdown's Gen 9 dex.

    python -m tools.gen_vocab

Index 0 is "none/padding" and 1 is "unknown" in every table; real ids follow,
sorted, so a vocabulary only grows at the end when regenerated with a newer dex
only if ids sort last (check `git diff` before committing a regenerated file).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from league.atomic import atomic_write_text
from league.showdown.install import locate_showdown

OUT = Path(__file__).resolve().parents[1] / "league" / "battle" / "vocab.json"

JS = r"""
const ps = require(process.argv[1] + '/dist/sim');
const dex = ps.Dex.forGen(9);
const ids = (list) => [...new Set(list.filter(x => x.exists && x.gen <= 9).map(x => x.id))].sort();
process.stdout.write(JSON.stringify({
  species: ids(dex.species.all()),
  moves: ids(dex.moves.all()),
  items: ids(dex.items.all()),
  abilities: ids(dex.abilities.all()),
}));
"""


def main(argv=None) -> None:
    from tools import cli

    cli.parser("python -m tools.gen_vocab", __doc__).parse_args(argv)  # no options: --help only
    inst = locate_showdown()
    out = subprocess.run([inst.node, "-e", JS, str(inst.package_dir)], capture_output=True, text=True, check=True)
    tables = json.loads(out.stdout)
    vocab: dict[str, str | list[str]] = {"showdown_version": inst.version}
    for k, ids in tables.items():
        vocab[k] = ["<none>", "<unk>", *ids]
    atomic_write_text(OUT, json.dumps(vocab, separators=(",", ":")))
    print({k: len(v) for k, v in vocab.items() if isinstance(v, list)})


if __name__ == "__main__":
    main()
