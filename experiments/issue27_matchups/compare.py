"""Per pair: maxdamage's mirror rate next to agent:regc's rate vs maxdamage on the same two
teams (the two pairs.json files run.py wrote), binned by the mirror's rate.

    python experiments/issue27_matchups/compare.py experiments/issue27_matchups/pairs_maxdamage_mirror.json \
        experiments/issue27_matchups/pairs_regc_vs_maxdamage.json
"""

from __future__ import annotations

import json
import sys


def main() -> None:
    base, other = (json.load(open(p)) for p in sys.argv[1:3])
    by = {(r["p1_team"], r["p2_team"]): r for r in base["rows"]}
    xs = []
    for r in other["rows"]:
        b = by[(r["p1_team"], r["p2_team"])]
        xs.append((b["p1_wins"] / b["battles"], r["p1_wins"] / r["battles"], b["battles"], r["battles"]))
    xs.sort()
    n = len(xs)
    print("| mirror's p1 rate | pairs | mirror mean | other mean |")
    print("|---|---|---|---|")
    for lo, hi in ((0, 0.05), (0.05, 0.35), (0.35, 0.65), (0.65, 1.01)):
        sel = [x for x in xs if lo <= x[0] < hi]
        if sel:
            print(f"| [{lo}, {min(hi, 1)}{']' if hi > 1 else ')'} | {len(sel)} | "
                  f"{sum(x[0] for x in sel) / len(sel):.2f} | {sum(x[1] for x in sel) / len(sel):.2f} |")
    print(json.dumps({
        "pairs": n,
        "mirror_mean": round(sum(x[0] for x in xs) / n, 3),
        "other_mean": round(sum(x[1] for x in xs) / n, 3),
        "mean_of_the_better": round(sum(max(x[0], x[1]) for x in xs) / n, 3),
        "other_lower_by_0.2": sum(x[1] < x[0] - 0.2 for x in xs),
        "other_higher_by_0.2": sum(x[1] > x[0] + 0.2 for x in xs),
    }))


if __name__ == "__main__":
    main()
