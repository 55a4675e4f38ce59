"""league/proftrace.py: LEAGUE_PROFILE=DIR profiles a component's work into a pstats file."""

from __future__ import annotations

import os
import pstats

from league.proftrace import ENV, profiled


def _busy() -> int:
    return sum(i * i for i in range(20_000))


def test_a_profiled_block_writes_a_pstats_file_naming_what_ran(tmp_path, monkeypatch):
    monkeypatch.setenv(ENV, str(tmp_path / "prof"))
    with profiled("sim0"):
        _busy()
    files = os.listdir(tmp_path / "prof")
    assert files == [f"sim0_{os.getpid()}.prof"]  # no temporary file left
    st = pstats.Stats(str(tmp_path / "prof" / files[0]))
    assert any(fn[2] == "_busy" for fn in st.stats)  # type: ignore[attr-defined]


def test_without_the_setting_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    with profiled("learner"):
        _busy()
    assert os.listdir(tmp_path) == []
