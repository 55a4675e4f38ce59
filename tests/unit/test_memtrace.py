"""league/memtrace.py: the memory diagnostic names the line whose memory grew."""

import tracemalloc

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
