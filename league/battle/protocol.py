"""Protocol lines poke-env misreads, mended before it reads them: by the live players
(league/players/base.py) and by replays of recorded battles (league/battle/replay.py).

Round moved up by an ally's Round (Showdown's ``queue.prioritizeAction``: the user's own
move, its PP spent) is logged ``|move|p2b: X|Round|TARGET|[from] move: Round``. poke-env
reads the tag as a move another one called (as for Copycat): it does not add Round to the
user's moves, then looks it up there, and raises ``KeyError: 'round'``; the rest of that
message (the turn's log) is then lost to the battle. Without the tag the line says what
happened: the user used its own Round.
"""

from __future__ import annotations

ROUND_CALLED = frozenset({"[from] move: Round", "[from]move: Round"})


def mend(split: list[str]) -> list[str]:
    """One split protocol line (``"|move|...".split("|")``) as poke-env reads it right;
    changed in place, and returned."""
    if len(split) > 4 and split[1] == "move" and split[3] == "Round":
        split[4:] = [p for p in split[4:] if p not in ROUND_CALLED]
    return split
