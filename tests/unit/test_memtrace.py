"""league/memtrace.py: the memory diagnostic names the line whose memory grew."""

import json
import os
import time
import tracemalloc

import pytest

from league import memtrace


def test_report_names_the_allocation_site_that_grew():
    tracemalloc.start(memtrace.FRAMES)
    try:
        base = tracemalloc.take_snapshot()
        kept = [bytes(1024) + bytes([i % 256]) for i in range(4096)]  # ~4 MiB held at this line
        now = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    text = memtrace.report(base, now, "sim0", 5.0)
    first, _, top = text.split("\n")[:3]
    assert first.startswith("sim0 pid ") and "at 5.0 min" in first
    # the biggest growth is the list comprehension above, 4096 blocks of ~1 KiB
    mib = float(top.split()[0])
    assert 3.9 < mib < 4.5, text
    assert __file__ in text.split("\n")[3]
    assert len(kept) == 4096


def test_off_unless_the_environment_names_a_directory(monkeypatch):
    monkeypatch.delenv(memtrace.ENV, raising=False)
    assert memtrace.start("sim0") is False
    assert not tracemalloc.is_tracing()


class _Held:
    pass


def test_types_report_names_the_type_whose_count_grew():
    base = memtrace.type_counts()
    kept = [_Held() for _ in range(5000)]
    text = memtrace.types_report(base, memtrace.type_counts(), "learner", 10.0)
    first, _, top = text.split("\n")[:3]
    assert first.startswith("learner pid ") and "at 10.0 min" in first
    grew, now, name = top.split()[0], top.split()[2].rstrip(")"), top.split()[-1]
    assert name == f"{__name__}._Held" and int(grew) == 5000 and int(now) == 5000, text
    assert len(kept) == 5000


@pytest.mark.parametrize(
    "env, needle",
    [
        ({"LEAGUE_MEMTRACE_MODE": "heap"}, "LEAGUE_MEMTRACE_MODE='heap': one of types, tracemalloc"),
        ({"LEAGUE_MEMTRACE_EVERY": "0"}, "LEAGUE_MEMTRACE_EVERY='0': a number of seconds > 0"),
        ({"LEAGUE_MEMTRACE_EVERY": "soon"}, "LEAGUE_MEMTRACE_EVERY='soon'"),
        ({}, None),
        ({"LEAGUE_MEMTRACE_MODE": "tracemalloc", "LEAGUE_MEMTRACE_EVERY": "60"}, None),
    ],
)
def test_bad_settings_are_named_before_a_run_starts(env, needle, monkeypatch, tmp_path):
    monkeypatch.setenv(memtrace.ENV, str(tmp_path))
    for k in (memtrace.ENV_MODE, memtrace.ENV_EVERY):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    why = memtrace.env_problem()
    assert why == needle if needle is None else needle in why
    monkeypatch.delenv(memtrace.ENV)
    assert memtrace.env_problem() is None  # off: nothing to check


def test_a_traced_process_writes_its_report_and_a_line_each_period(monkeypatch, tmp_path):
    monkeypatch.setenv(memtrace.ENV, str(tmp_path / "mem"))
    monkeypatch.setenv(memtrace.ENV_EVERY, "0.2")
    monkeypatch.delenv(memtrace.ENV_MODE, raising=False)
    assert memtrace.start("sim9") is True
    try:
        _two_periods(tmp_path)
    finally:
        memtrace.stop()


def _two_periods(tmp_path):
    series = tmp_path / "mem" / f"sim9_{os.getpid()}.jsonl"
    deadline = time.monotonic() + 60
    while not (series.exists() and len(series.read_text().splitlines()) >= 2):
        assert time.monotonic() < deadline, "no two periods written"
        time.sleep(0.05)
    lines = [json.loads(x) for x in series.read_text().splitlines()]
    assert lines[0]["min"] <= lines[1]["min"] and lines[1]["rss"] > 0 and lines[1]["objects"] > 1000
    assert len(lines[1]["counts"]) == memtrace.TOP and "builtins.dict" in lines[1]["counts"]
    assert series.with_suffix(".txt").read_text().startswith("sim9 pid ")
