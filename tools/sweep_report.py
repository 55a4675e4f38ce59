"""Summarise a sweep: one row per job (a run directory), from what the job left behind.

    python -m tools.sweep_report multirun/DIR [--out table.md]

A job is a run directory (Hydra writes one per ``--multirun`` job). Its row: the
``+variant=`` override (else its other overrides), updates and battles (last
checkpoint, TensorBoard), the last evaluation win rates logged during the run, final
entropy, and every ``battle_<opponent>_<greedy|sampling>.json`` that ``tools.battle``
left in the directory (win rate with its 95% Wilson interval). Prints a Markdown table
and, as its last line, JSON with the same figures.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from league.match import wilson_interval

OPPONENTS = ("random", "maxdamage")
MODES = ("greedy", "sampling")


def job_label(job: Path) -> str:
    ov = job / ".hydra" / "overrides.yaml"
    if not ov.exists():
        return job.name
    lines = [ln.strip().lstrip("- ").strip() for ln in ov.read_text().splitlines() if ln.strip().startswith("-")]
    for ln in lines:
        if ln.startswith("+variant="):
            return ln.split("=", 1)[1]
    rest = [ln for ln in lines if not ln.startswith(("+experiment=", "experiment=", "run.max_minutes=", "run.seed="))]
    return " ".join(rest) or "base"


def last_checkpoint_updates(job: Path) -> int | None:
    ckpts = sorted((job / "checkpoints").glob("ckpt_*.pt"))
    if not ckpts:
        return None
    m = re.search(r"ckpt_(\d+)", ckpts[-1].name)
    return int(m.group(1)) if m else None


def battle_results(job: Path) -> dict[str, dict]:
    out = {}
    for opp in OPPONENTS:
        for mode in MODES:
            f = job / f"battle_{opp}_{mode}.json"
            if not f.exists():
                continue
            d = json.loads(f.read_text())
            n = d["battles"] - d.get("unfinished", 0)
            wins = d["p1_wins"] + 0.5 * d.get("ties", 0)
            lo, hi = wilson_interval(round(wins), n)
            out[f"{opp}_{mode}"] = {
                "win_rate": round(wins / max(n, 1), 3),
                "ci95": [round(lo, 3), round(hi, 3)],
                "battles": n,
            }
    return out


def tb_last(job: Path, tags: list[str]) -> dict[str, float]:
    if not (job / "tb").exists():
        return {}
    from tools.plot_run import load_scalars

    sc = load_scalars(job)
    return {t: round(sc[t][-1][1], 3) for t in tags if sc.get(t)}


TB_TAGS = ["eval/win_rate/random", "eval/win_rate/maxdamage", "learner/main/entropy", "sim/battles_total"]


def report(sweep: Path) -> list[dict]:
    jobs = sorted(
        (p for p in sweep.iterdir() if p.is_dir() and (p / "checkpoints").exists()),
        key=lambda p: (int(m.group(1)) if (m := re.match(r"(\d+)", p.name)) else 1 << 30, p.name),
    )
    if not jobs:
        from tools import cli

        cli.bad_input(f"{sweep}: no run directories (with checkpoints/) under it")
    rows = []
    for job in jobs:
        rows.append(
            {
                "job": job.name,
                "variant": job_label(job),
                "updates": last_checkpoint_updates(job),
                "during_run": tb_last(job, TB_TAGS),
                "battles": battle_results(job),
            }
        )
    return rows


def markdown(rows: list[dict]) -> str:
    cols = [f"{o} {m}" for o in OPPONENTS for m in MODES]
    head = "| job | variant | updates | " + " | ".join(cols) + " | eval md (run) | entropy |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        cells = []
        for o in OPPONENTS:
            for m in MODES:
                b = r["battles"].get(f"{o}_{m}")
                cells.append(f"{b['win_rate']:.3f} [{b['ci95'][0]:.3f}, {b['ci95'][1]:.3f}]" if b else "")
        d = r["during_run"]
        lines.append(
            f"| {r['job']} | {r['variant']} | {r['updates']} | "
            + " | ".join(cells)
            + f" | {d.get('eval/win_rate/maxdamage', '')} | {d.get('learner/main/entropy', '')} |"
        )
    return "\n".join(lines)


def main(argv=None) -> list[dict]:
    from tools import cli

    ap = cli.parser("python -m tools.sweep_report", __doc__)
    ap.add_argument("sweep", help="a --multirun directory (one run directory per job)")
    ap.add_argument("--out", default=None, metavar="FILE", help="also write the Markdown table here")
    args = ap.parse_args(argv)
    sweep = Path(args.sweep)
    if not sweep.is_dir():
        cli.bad_input(f"{sweep}: not a directory")
    rows = report(sweep)
    md = markdown(rows)
    print(md)
    if args.out:
        Path(args.out).write_text(md + "\n")
    print(json.dumps(rows))
    return rows


if __name__ == "__main__":
    main()
