"""The screen's table: each job's TensorBoard figures at the same learner updates.

    python experiments/issue27_screen/table.py runs/screen base ppo [--at 500,1000,1500,2000,2500]

For each job and each update U: the in-run evaluation win rates (sampling, the last 200
games before U), and the learner's diagnostics as means over the 100 updates before U.
Prints Markdown; the final 200-game results are read from battle_maxdamage_*.json.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tools.plot_run import load_scalars  # noqa: E402

TAGS = [("eval vs maxdamage", "eval/win_rate/maxdamage", "last"), ("eval vs random", "eval/win_rate/random", "last"),
        ("entropy (turn)", "learner/main/entropy/turn", "mean"), ("entropy (preview)", "learner/main/entropy/preview", "mean"),
        ("explained variance", "learner/main/value/explained_variance", "mean"),
        ("grad norm", "learner/main/grad_norm", "mean"), ("kl_published", "learner/main/policy/kl_published", "mean"),
        ("1/mu(a_t)", "learner/main/q/inv_mu_taken", "mean"), ("|coef|", "learner/main/q/coef_abs", "mean"),
        ("value loss", "learner/main/loss/value", "mean"), ("PPO |advantage|", "learner/main/ppo/adv_abs", "mean"),
        ("PPO ratio outside the clip", "learner/main/ppo/clip_frac", "mean"),
        ("PPO mean abs(ratio - 1)", "learner/main/ppo/ratio_dev", "mean")]


def at(points, u: int, how: str, window: int = 100):
    before = [(s, v) for s, v in points if s <= u]
    if not before:
        return None
    if how == "last":
        return before[-1][1]
    vals = [v for s, v in before if s > u - window]
    return sum(vals) / len(vals) if vals else None


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("jobs", nargs="+")
    ap.add_argument("--at", default="500,1000,1500,2000,2500")
    args = ap.parse_args()
    us = [int(x) for x in args.at.split(",")]
    scal = {j: load_scalars(Path(args.root) / j) for j in args.jobs}
    TAGS[:] = [t for t in TAGS if any(scal[j].get(t[1]) for j in args.jobs)]  # figures no job logged: no rows
    print("| figure | update | " + " | ".join(args.jobs) + " |")
    print("|---|---|" + "---|" * len(args.jobs))
    for name, tag, how in TAGS:
        for u in us:
            cells = []
            for j in args.jobs:
                v = at(scal[j].get(tag, []), u, how)
                cells.append("–" if v is None else f"{v:.3f}")
            print(f"| {name} | {u} | " + " | ".join(cells) + " |")
    print()
    print("| job | updates | vs maxdamage greedy | vs maxdamage sampling |")
    print("|---|---|---|---|")
    for j in args.jobs:
        d = Path(args.root) / j
        s = json.loads((d / "summary.json").read_text()) if (d / "summary.json").exists() else {}
        cells = []
        for mode in ("greedy", "sampling"):
            f = d / f"battle_maxdamage_{mode}.json"
            if f.exists() and f.stat().st_size:
                r = json.loads(f.read_text())
                cells.append(f"{r['p1_win_rate']:.3f} [{r['ci95'][0]:.3f}, {r['ci95'][1]:.3f}] ({r['battles']})")
            else:
                cells.append("–")
        print(f"| {j} | {s.get('updates', '–')} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
