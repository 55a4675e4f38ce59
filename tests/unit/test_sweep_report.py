"""tools.sweep_report: a sweep directory's jobs -> one row each (labels, updates, win rates with intervals)."""

from __future__ import annotations

import json

from tools.sweep_report import main


def _job(root, name, overrides, ckpts, battles):
    j = root / name
    (j / ".hydra").mkdir(parents=True)
    (j / ".hydra" / "overrides.yaml").write_text("".join(f"- {o}\n" for o in overrides))
    (j / "checkpoints").mkdir()
    for c in ckpts:
        (j / "checkpoints" / f"ckpt_{c:09d}.pt").write_bytes(b"")
    for fname, (wins, n) in battles.items():
        (j / fname).write_text(
            json.dumps({"battles": n, "p1_wins": wins, "p2_wins": n - wins, "ties": 0, "unfinished": 0})
        )


def test_sweep_report_rows_and_wilson_intervals(tmp_path, capsys):
    _job(
        tmp_path,
        "0_base",
        ["+experiment=reg_c", "+variant=base", "run.max_minutes=25", "run.seed=0"],
        [100, 1200],
        {"battle_maxdamage_greedy.json": (150, 200)},
    )
    _job(
        tmp_path,
        "1",
        ["+experiment=reg_c", "learner.rnad.eta=0.05", "run.seed=0"],
        [900],
        {"battle_random_sampling.json": (200, 200)},
    )
    (tmp_path / "multirun.yaml").write_text("")  # not a job
    rows = main([str(tmp_path), "--out", str(tmp_path / "t.md")])
    assert [r["variant"] for r in rows] == ["base", "learner.rnad.eta=0.05"]
    assert [r["updates"] for r in rows] == [1200, 900]
    # 150/200: Wilson 95% [0.686, 0.805] (hand-computed); 200/200: [0.981, 1.0]
    assert rows[0]["battles"] == {"maxdamage_greedy": {"win_rate": 0.75, "ci95": [0.686, 0.805], "battles": 200}}
    assert rows[1]["battles"]["random_sampling"]["ci95"] == [0.981, 1.0]
    table = (tmp_path / "t.md").read_text()
    assert "| 0_base | base | 1200 |" in table and "0.750 [0.686, 0.805]" in table
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1]) == rows
