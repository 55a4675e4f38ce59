"""Where a long run's memory goes: a diagnostic switched on by the environment.

``LEAGUE_MEMTRACE=DIR`` (optional ``LEAGUE_MEMTRACE_EVERY`` seconds, default 300): each
process that calls :func:`start` (a simulator, a learner) writes ``DIR/NAME_PID.txt``
every period, with the process's RSS (the latest period; ``NAME_PID.jsonl`` gets a line
each period: minute, RSS and, in ``types`` mode, the counts of the most numerous types).
``LEAGUE_MEMTRACE_MODE`` says what the reports hold:

- ``types`` (the default): the object types whose live count grew most since the first
  period (so start-up is not counted), from the garbage collector's list. It costs a
  fraction of a second per period and nothing between: a run traced this way runs at its
  own speed.
- ``tracemalloc``: the allocation sites (four frames) whose live memory grew most, from
  Python's ``tracemalloc``. It names the line, but slows an allocating process several
  times over (a simulator ~7x, measured): a run traced so is no speed figure, and it
  may not finish what it was started for.

The Node stream workers write ``DIR/node_PID.jsonl`` (V8's heap and RSS each minute,
league/showdown/stream_worker.js). docs/troubleshooting.md says how to read the files."""

from __future__ import annotations

import gc
import json
import os
import threading
import time
import tracemalloc
from pathlib import Path

from league.atomic import atomic_write_text

ENV = "LEAGUE_MEMTRACE"
ENV_EVERY = "LEAGUE_MEMTRACE_EVERY"
ENV_MODE = "LEAGUE_MEMTRACE_MODE"
MODES = ("types", "tracemalloc")
_stop = threading.Event()  # stop(): the tracing thread ends at its next period
FRAMES = 4
TOP = 30


def rss_mb() -> float:
    """This process's resident memory (MiB), from /proc (0.0 where there is none)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return 0.0


def report(base: tracemalloc.Snapshot, now: tracemalloc.Snapshot, name: str, minutes: float) -> str:
    """The text of one period: the sites whose live memory grew most from ``base``."""
    stats = now.compare_to(base, "traceback")
    total = sum(s.size for s in now.statistics("filename"))
    lines = [
        f"{name} pid {os.getpid()} at {minutes:.1f} min: RSS {rss_mb():.1f} MiB, "
        f"traced {total / 2**20:.1f} MiB, growth since the first snapshot "
        f"{sum(s.size_diff for s in stats) / 2**20:+.1f} MiB",
        "",
    ]
    for s in stats[:TOP]:
        lines.append(f"{s.size_diff / 2**20:+8.2f} MiB  {s.count_diff:+8d} blocks  (now {s.size / 2**20:.2f} MiB)")
        lines.extend(f"        {fr.filename}:{fr.lineno}" for fr in reversed(s.traceback))  # the allocating line first
    return "\n".join(lines) + "\n"


def type_counts() -> dict[str, int]:
    """Live objects the garbage collector tracks, counted by type (``module.QualName``)."""
    counts: dict[str, int] = {}
    for o in gc.get_objects():
        t = type(o)
        key = f"{t.__module__}.{t.__qualname__}"
        counts[key] = counts.get(key, 0) + 1
    return counts


def types_report(base: dict[str, int], now: dict[str, int], name: str, minutes: float) -> str:
    """The text of one period in ``types`` mode: the types whose count grew most from ``base``."""
    diff = sorted(((n - base.get(k, 0), n, k) for k, n in now.items()), reverse=True)
    lines = [
        f"{name} pid {os.getpid()} at {minutes:.1f} min: RSS {rss_mb():.1f} MiB, "
        f"{sum(now.values())} objects tracked ({sum(now.values()) - sum(base.values()):+d} since the first count)",
        "",
    ]
    lines.extend(f"{d:+10d}  (now {n:10d})  {k}" for d, n, k in diff[:TOP])
    return "\n".join(lines) + "\n"


def env_problem() -> str | None:
    """What is wrong with the environment's memtrace settings (None: nothing), for a run
    to refuse at start rather than have each traced process fail."""
    if not os.environ.get(ENV):
        return None
    mode = os.environ.get(ENV_MODE, "types")
    if mode not in MODES:
        return f"{ENV_MODE}={mode!r}: one of {', '.join(MODES)} (or unset: types)"
    try:
        if float(os.environ.get(ENV_EVERY, "300")) <= 0:
            raise ValueError
    except ValueError:
        return f"{ENV_EVERY}={os.environ.get(ENV_EVERY)!r}: a number of seconds > 0"
    return None


def start(name: str) -> bool:
    """Trace this process's memory if ``LEAGUE_MEMTRACE`` names a directory; returns
    whether it does. A daemon thread writes the report every period."""
    out = os.environ.get(ENV)
    if not out:
        return False
    if why := env_problem():
        raise ValueError(why)
    every = float(os.environ.get(ENV_EVERY, "300"))
    mode = os.environ.get(ENV_MODE, "types")
    path = Path(out) / f"{name}_{os.getpid()}.txt"
    series = path.with_suffix(".jsonl")
    t0 = time.monotonic()
    if mode == "tracemalloc":
        tracemalloc.start(FRAMES)

    _stop.clear()

    def loop() -> None:
        if _stop.wait(every):
            return
        if mode == "tracemalloc":
            snap0 = tracemalloc.take_snapshot()
        else:
            counts0 = type_counts()
        while not _stop.wait(every):
            minutes = (time.monotonic() - t0) / 60
            line: dict = {"min": round(minutes, 1), "rss": round(rss_mb(), 1)}
            if mode == "tracemalloc":
                text = report(snap0, tracemalloc.take_snapshot(), name, minutes)
            else:
                counts = type_counts()
                text = types_report(counts0, counts, name, minutes)
                line["objects"] = sum(counts.values())
                line["counts"] = {k: n for n, k in sorted(((n, k) for k, n in counts.items()), reverse=True)[:TOP]}
            atomic_write_text(path, text)
            with open(series, "a") as f:  # one line a period: the curve the latest report lacks
                f.write(json.dumps(line) + "\n")

    threading.Thread(target=loop, name="memtrace", daemon=True).start()
    return True


def stop() -> None:
    """End the tracing thread (tests; a traced process otherwise traces to its end)."""
    _stop.set()
    if tracemalloc.is_tracing():
        tracemalloc.stop()
