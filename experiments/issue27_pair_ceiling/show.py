"""Prints a pair directory's results: python experiments/issue27_pair_ceiling/show.py RUNS/PAIR ..."""

import json
import sys
from pathlib import Path

for d in sys.argv[1:]:
    d = Path(d)
    for pre in ("", "ft_"):
        f = d / f"{pre}exploit.json"
        if not f.exists() or not f.read_text().strip():
            continue
        x = json.loads(f.read_text().strip().splitlines()[-1])
        c = x["curve"]
        pts = [(u, round(w, 2)) for u, w in c[:: max(1, len(c) // 12)]]
        print(
            d.name,
            pre or "scratch",
            "pool4:",
            x["exploit_win_rate"],
            x["ci95"],
            "samp",
            x["exploit_win_rate_sampling"],
            "upd",
            x["updates"],
            "wall",
            x["wall_s"],
        )
        print("   curve", pts)
    for pre in ("pair", "ftpair", "regc"):
        for m in ("greedy", "sampling"):
            f = d / f"{pre}_{m}.json"
            if f.exists() and f.read_text().strip():
                y = json.loads(f.read_text().strip().splitlines()[-1])
                print("  ", pre, m, y["p1_win_rate"], y["ci95"], "unfinished", y["unfinished"])
