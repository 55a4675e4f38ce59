"""How well resolver.py stands in for Showdown's copies: reads play.py compare's trace
(per search, both value lists over the same candidates) and prints JSON: how often their
picks agree, the copies' value lost by playing the resolver's pick (regret), the same for
the network's first choice, and the within-search rank correlation.

    python experiments/issue27_resolver/compare.py runs/resolver/compare_trace.jsonl
"""

from __future__ import annotations

import json
import sys

import numpy as np
from scipy.stats import spearmanr


def pick(vals, margin=0.0):
    ok = [i for i, v in enumerate(vals) if v is not None]
    best = max(ok, key=lambda i: (vals[i], -i))
    if margin and best and vals[0] is not None and vals[best] - vals[0] < margin - 1e-9:
        return 0
    return best


def main(path: str) -> None:
    rows = [json.loads(line) for line in open(path)]
    agree = agree_dec = n_dec = 0
    regret_res, regret_res01, regret_net, rho = [], [], [], []
    for r in rows:
        c, v = r["copies"], r["resolver"]
        ok = [i for i, x in enumerate(c) if x is not None]
        if len(ok) < 2:
            continue
        cb, rb = pick(c), pick([v[i] if c[i] is not None else None for i in range(len(v))])
        r01 = pick([v[i] if c[i] is not None else None for i in range(len(v))], 0.1)
        agree += cb == rb
        best = c[cb]
        regret_res.append(best - c[rb])
        regret_res01.append(best - c[r01])
        regret_net.append(best - c[0] if c[0] is not None else np.nan)
        if c[0] is not None and best - c[0] >= 0.1 - 1e-9:  # a decisive correction by the copies
            n_dec += 1
            agree_dec += rb == cb
        x = [c[i] for i in ok]
        y = [v[i] for i in ok]
        if len(set(x)) > 1 and len(set(y)) > 1:
            rho.append(spearmanr(x, y).statistic)
    n = len(regret_res)
    print(
        json.dumps(
            {
                "searches": n,
                "picks_agree": round(agree / n, 3),
                "copies_decisive": n_dec,
                "resolver_finds_decisive": round(agree_dec / max(n_dec, 1), 3),
                "regret_copies_value": {
                    "network_first": round(float(np.nanmean(regret_net)), 4),
                    "resolver": round(float(np.mean(regret_res)), 4),
                    "resolver0.1": round(float(np.mean(regret_res01)), 4),
                },
                "spearman_within_search_median": round(float(np.median(rho)), 3),
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1])
