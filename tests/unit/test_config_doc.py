"""The config reference: every setting documented where it is defined, docs/config.md
generated from it, and `python -m league.run --help` listing it."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field

from league.config_doc import DOC_PATH, field_docs, main, markdown, reference
from tests.conftest import ROOT


@dataclass
class _Sample:
    # a block comment
    # of two lines
    a: int = 1  # and one on the line
    b: str = "x"  # only on the line
    c: list[int] = field(default_factory=lambda: [2])
    # above only
    d: float | None = None


def test_field_docs_reads_block_and_line_comments():
    assert field_docs(_Sample) == {
        "a": "a block comment of two lines and one on the line",
        "b": "only on the line",
        "c": "",
        "d": "above only",
    }
    rows = {e.key: (e.type, e.default) for e in reference(_Sample, "s.")}
    assert rows == {
        "s.a": ("int", "1"),
        "s.b": ("str", "'x'"),
        "s.c": ("list[int]", "[2]"),
        "s.d": ("float | None", "null"),
    }


def test_every_setting_of_the_schema_has_a_doc_line():
    missing = [e.key for e in reference() if not e.doc]
    assert not missing, f"settings without a comment where they are defined: {missing}"


def test_docs_config_md_is_what_the_schema_generates():
    assert main(["--check"]) == 0, "run: python -m league.config_doc"
    assert DOC_PATH.read_text() == markdown() + "\n"


def test_league_run_help_lists_every_setting_and_touches_nothing(tmp_path):
    out = subprocess.run(
        [sys.executable, "-m", "league.run", "--help"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    for e in reference():
        assert f"  {e.key} (" in out.stdout, e.key
    assert "experiment: reg_c, reg_mb, smoke" in out.stdout
    assert list(tmp_path.iterdir()) == []  # no run directory, no outputs/
