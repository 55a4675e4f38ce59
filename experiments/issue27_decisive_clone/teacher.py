"""Run tools.bc with the search player's look-ahead kept to its decisive picks (issue 27).

``search:SPEC`` then plays the look-ahead's pick only where it beats the network's first
choice by at least ``MARGIN`` of one-turn material (``look_ahead``'s ``margin``, as
``sim.search_margin`` in training), and the network's first choice elsewhere: the
``decisive0.1`` player of experiments/issue27_search_parts (0.82 against ``maxdamage``,
where the network alone wins 0.63). Its logs record its choices as policy ``search``.

    python experiments/issue27_decisive_clone/teacher.py generate --p1 search:agent:regc \\
        --p2 maxdamage -n 1500 --out runs/decisive_clone/logs
"""

from __future__ import annotations

import os
import sys

import league.players.search as search_mod

MARGIN = float(os.environ.get("MARGIN", "0.1"))
_look_ahead = search_mod.look_ahead


async def decisive(*args, **kwargs):
    kwargs["margin"] = MARGIN
    best = await _look_ahead(*args, **kwargs)
    return 0 if best == -1 else best  # a near-tie: the network's first choice


search_mod.look_ahead = decisive  # SearchPlayer._search reads the module's name

if __name__ == "__main__":
    from tools.bc import main

    main(sys.argv[1:])
