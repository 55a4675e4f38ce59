"""Strength over an hour on teams it never trained on: a run's snapshots of the main agent
nearest to the given learner updates each play N greedy games per seed against
`maxdamage` on the 238 shared Reg C teams (tools.battle, seeds 0..S-1), and the last line
is JSON: [{update, snapshot, win_rate, ci95, games}].

    python experiments/issue27_epochs2_60min/snapshot_curve.py RUN_DIR OUT_JSON UPDATE [UPDATE ...]
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from league.match import wilson_interval
from tools.tournament import run_snapshots

TEAMS = "../shared/teams/gen9vgc2023regc"
SEEDS = (0, 1)


def main() -> None:
    run, out, targets = Path(sys.argv[1]), Path(sys.argv[2]), [int(u) for u in sys.argv[3:]]
    snaps = run_snapshots(run)
    rows = []
    for u in targets:
        path, step = min(snaps.items(), key=lambda kv: abs(kv[1] - u))
        wins = games = 0
        for seed in SEEDS:
            res = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "tools.battle",
                    "--p1",
                    f"checkpoint:{path}",
                    "--p2",
                    "maxdamage",
                    "-n",
                    "200",
                    "--teams",
                    TEAMS,
                    "--greedy",
                    "--seed",
                    str(seed),
                ],
                check=True,
                capture_output=True,
                text=True,
            )
            d = json.loads(res.stdout.strip().splitlines()[-1])
            wins += d["p1_wins"]
            games += d["battles"]
        lo, hi = wilson_interval(wins, games)
        rows.append(
            {
                "update": step,
                "snapshot": path.name,
                "win_rate": wins / games,
                "ci95": [round(lo, 4), round(hi, 4)],
                "games": games,
            }
        )
        print(rows[-1], flush=True)
    out.write_text(json.dumps(rows, indent=1) + "\n")
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
