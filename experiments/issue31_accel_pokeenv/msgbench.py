"""poke-env's message handling alone, on the recorded battles of tests/data: every protocol
line and request of each recorded side fed to a fresh DoubleBattle (league.battle.replay:
parse_message / parse_request, no observation encoded), CPU time of this thread, best of
15 passes. Prints JSON: ms a battle side, µs a line, and whether poke-env's battle-state
modules ran compiled (league/accel) or plain.

    LEAGUE_ACCEL=league python experiments/issue31_accel_pokeenv/msgbench.py   # poke-env plain
    python experiments/issue31_accel_pokeenv/msgbench.py                       # poke-env compiled
"""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path

from league import accel
from league.battle.replay import replay

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"


def main() -> dict:
    recs = json.loads((DATA / "recorded_battles.json").read_text())
    recs += json.loads(gzip.decompress((DATA / "obs_identity_battles.json.gz").read_bytes()))
    lines = sum(len(r["lines"]) for r in recs)

    def one_pass() -> int:
        return sum(1 for r in recs for _ in replay(r["lines"], r["username"]))

    for _ in range(2):
        one_pass()
    best = float("inf")
    for _ in range(15):
        t0 = time.thread_time()
        decisions = one_pass()
        best = min(best, time.thread_time() - t0)
    return {
        "poke_env": "compiled" if all(accel.loaded().get(m) for m in accel.EXTERNAL) else "plain",
        "sides": len(recs),
        "lines": lines,
        "decisions": decisions,
        "ms_per_side": round(best * 1e3 / len(recs), 4),
        "us_per_line": round(best * 1e6 / lines, 3),
    }


if __name__ == "__main__":
    print(json.dumps(main()))
