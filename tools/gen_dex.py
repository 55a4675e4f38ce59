"""Regenerate league/battle/dex_champions.json from the installed Showdown's Champions mods.

    python -m tools.gen_dex

Pokemon Champions (Showdown mods ``champions`` and ``championsregma``) changes moves
(power, accuracy, PP capped at 20, flags, secondaries), brings Mega Evolution and new
abilities, and computes stats from stat points (mods/champions/scripts.ts:
``statModify``). league/battle/dex.py reads these formats' species, moves and mega
stones from this file, never from poke-env's gen 9 tables (which stay the source for
Scarlet/Violet formats). Each table keeps Showdown's own field names and values, only
the fields dex.py reads: moves from the mod's merged data (``Dex.mod(MOD).data``, after
the mod's ``init``), species as Showdown resolves them (``Dex.mod(MOD).species.get``).
A mod whose tables equal another's is stored once and named in ``aliases``
(``championsregma`` only changes which items are legal).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from league.atomic import atomic_write_text
from league.showdown.install import locate_showdown

OUT = Path(__file__).resolve().parents[1] / "league" / "battle" / "dex_champions.json"
MODS = ("champions", "championsregma")

JS = r"""
const ps = require(process.argv[1] + '/dist/sim');
const pick = (obj, keys) => {
  const out = {};
  for (const k of keys) if (obj[k] !== undefined && obj[k] !== null) out[k] = obj[k];
  return JSON.parse(JSON.stringify(out));  // functions (callbacks) dropped
};
const SPECIES = ['name', 'baseSpecies', 'forme', 'types', 'baseStats', 'abilities', 'weightkg', 'requiredItem'];
const MOVES = ['accuracy', 'basePower', 'category', 'type', 'priority', 'target', 'multihit', 'damage', 'flags',
  'secondary', 'secondaries', 'status', 'volatileStatus', 'recoil', 'mindBlownRecoil', 'drain', 'heal', 'self',
  'boosts', 'selfSwitch', 'critRatio', 'willCrit', 'selfdestruct', 'pp', 'noPPBoosts', 'stallingMove'];
const out = {};
for (const mod of process.argv[2].split(',')) {
  const dex = ps.Dex.mod(mod);
  const data = dex.data;
  const ids = (list) => list.filter(x => x.exists).map(x => x.id).sort();
  const table = (list, get, keys) => Object.fromEntries(ids(list).map(id => [id, pick(get(id), keys)]));
  out[mod] = {
    // species as Showdown resolves them (cosmetic formes have no data entry of their own),
    // moves as the mod's data writes them (poke-env's gen 9 table has the same shape)
    pokedex: table(dex.species.all(), id => dex.species.get(id), SPECIES),
    moves: table(dex.moves.all(), id => data.Moves[id], MOVES),
    megastones: Object.fromEntries(ids(dex.items.all()).filter(id => data.Items[id].megaStone)
      .map(id => [id, data.Items[id].megaStone])),
  };
}
process.stdout.write(JSON.stringify(out));
"""


def main(argv=None) -> None:
    from tools import cli

    cli.parser("python -m tools.gen_dex", __doc__).parse_args(argv)  # no options: --help only
    inst = locate_showdown()
    out = subprocess.run(
        [inst.node, "-e", JS, str(inst.package_dir), ",".join(MODS)], capture_output=True, text=True, check=True
    )
    per_mod = json.loads(out.stdout)
    tables: dict[str, dict] = {}  # mod -> its tables
    aliases: dict[str, str] = {}  # mod -> the mod with the same tables
    for mod in MODS:
        same = next((m for m, t in tables.items() if t == per_mod[mod]), None)
        if same is None:
            tables[mod] = per_mod[mod]
        else:
            aliases[mod] = same
    data = {"showdown_version": inst.version, "mods": tables, "aliases": aliases}
    atomic_write_text(OUT, json.dumps(data, separators=(",", ":"), sort_keys=True))
    print({m: {k: len(v) for k, v in t.items()} for m, t in tables.items()}, "aliases:", aliases)


if __name__ == "__main__":
    main()
