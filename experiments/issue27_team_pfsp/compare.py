"""Team pairs by PFSP against uniform draws, the same 12 teams, 1,500 updates, per seed
(issue 27): greedy rates vs maxdamage on the study's 36 training pairs and on 36 pairs
of 12 unseen teams, with the pairs lost (rate <= 0.2) and won (>= 0.8).

    python experiments/issue27_team_pfsp/compare.py PAIRS_OUT ARM_OUT > compare.json
PAIRS_OUT: experiments/issue27_pair_ceiling/run.sh's OUT (uniform: pool12*, unseen*);
ARM_OUT: experiments/issue27_team_pfsp/run.sh's OUT (s0, s1, s2: the JSON's "arm").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from league.match import wilson_interval  # noqa: E402


def read(path: Path) -> dict | None:
    """A matchups run.py output directory's pairs.json: rate, interval, lost and won pairs."""
    f = path / "pairs.json"
    if not f.exists():
        return None
    pairs = json.loads(f.read_text())["rows"]
    n = sum(p["battles"] for p in pairs)
    wins = sum(p["p1_wins"] for p in pairs)
    rates = [p["p1_wins"] / p["battles"] for p in pairs if p["battles"]]
    return {
        "rate": round(wins / n, 4),
        "ci95": [round(x, 4) for x in wilson_interval(wins, n)],
        "games": n,
        "lost_pairs": sum(r <= 0.2 for r in rates),
        "won_pairs": sum(r >= 0.8 for r in rates),
        "rates": {
            f"{p['p1_team']}|{p['p2_team']}": round(p["p1_wins"] / p["battles"], 3) for p in pairs if p["battles"]
        },
    }


def main() -> None:
    base, tp = Path(sys.argv[1]), Path(sys.argv[2])
    out: dict = {}
    for arm, dirs in (
        (
            "uniform",
            {
                s: (base / f"pool12{sfx}" / "matchups", base / f"unseen{sfx}")
                for s, sfx in ((0, ""), (1, "_s1"), (2, "_s2"))
            },
        ),
        ("arm", {s: (tp / f"s{s}" / "matchups", tp / f"s{s}" / "unseen") for s in (0, 1, 2)}),
    ):
        for s, (trained, unseen) in dirs.items():
            out.setdefault(arm, {})[f"seed{s}"] = {"trained_pairs": read(trained), "unseen_pairs": read(unseen)}
    for arm in out:
        seeds = list(out[arm].values())
        for kind in ("trained_pairs", "unseen_pairs"):
            got = [v[kind] for v in seeds if v[kind]]
            if got:
                out[arm][f"mean_{kind}"] = round(sum(g["rate"] for g in got) / len(got), 4)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
