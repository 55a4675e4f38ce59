"""How often poke-env updates one of our Pokemon from a request entry equal to the one it
read at the last request (issue 31: would skipping unchanged entries pay?). Replays the
recorded battles of tests/data into poke-env's DoubleBattle (league.battle.replay, as the
observation-identity test does) and counts, over every
``Pokemon.update_from_request`` call, those whose entry equals the Pokemon's
``_last_request``. Prints JSON.

    python experiments/issue31_memo_probes/request_repeats.py
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from poke_env.battle.pokemon import Pokemon

from league.battle.replay import replay

DATA = Path(__file__).resolve().parents[2] / "tests" / "data"


def main() -> None:
    recs = json.loads((DATA / "recorded_battles.json").read_text())
    recs += json.loads(gzip.decompress((DATA / "obs_identity_battles.json.gz").read_bytes()))
    counts = {"calls": 0, "same_as_last": 0}
    orig = Pokemon.update_from_request

    def wrap(self, req):
        counts["calls"] += 1
        counts["same_as_last"] += getattr(self, "_last_request", None) == req
        return orig(self, req)

    Pokemon.update_from_request = wrap
    for r in recs:
        for _ in replay(r["lines"], r["username"]):
            pass
    Pokemon.update_from_request = orig
    counts["battles"] = len(recs)
    counts["same_share"] = round(counts["same_as_last"] / counts["calls"], 4)
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
