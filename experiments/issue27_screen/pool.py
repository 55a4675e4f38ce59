"""Pool a job's tools.battle results over seeds: wins / games and the Wilson 95 % interval.

    python experiments/issue27_screen/pool.py runs/screen/ppo/battle_maxdamage_greedy*.json
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from league.match import wilson_interval  # noqa: E402

rows = [json.loads(Path(f).read_text()) for f in sys.argv[1:]]
k, n = sum(r["p1_wins"] for r in rows), sum(r["battles"] for r in rows)
lo, hi = wilson_interval(k, n)
print(json.dumps({"files": len(rows), "wins": k, "battles": n, "win_rate": round(k / n, 4),
                  "ci95": [round(lo, 4), round(hi, 4)],
                  "unfinished": sum(r["unfinished"] for r in rows), "showdown_errors": sum(r["showdown_errors"] for r in rows)}))
