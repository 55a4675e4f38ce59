"""The cyclic garbage collector of a process that plays battles (issue 31).

CPython collects its youngest generation each time 700 more container objects are alive
than at the last collection, and the whole heap every ~100 of those (while enough new
objects have survived). A simulator shard holds ~700,000 objects from its start-up
(torch and the compiled network, poke-env's and the dex's tables) plus every battle of
the last 30 s (``LeaguePlayer._battle_finished_callback`` keeps them that long): in a
``reg_c`` run, alone on a 2-core box, its collections took **8.5 %** of the simulator's
CPU, most of it in full collections of ~0.6 s CPU each (measured with ``gc.callbacks``,
experiments/issue31_gc).

:func:`settle`, once per process before its first battle (``league.match.play_matches``
calls it): one full collection, then everything alive is frozen (``gc.freeze``: never
walked again; it is start-up's, alive for the process's life) and the youngest
generation collected every ``YOUNG`` objects instead of 700. Battles allocate and free
objects at a high rate but their *net* growth is slow, so collections become rare: in
the same measurement, **1.3 %**. A cycle still becomes garbage and is still collected,
later; only cyclic garbage made of start-up's objects (frozen) is never collected.

:func:`gc_cpu_s` is this process's CPU seconds in collections since :func:`settle` (the
simulator's stats report it; tools.bench prints it per battle).
"""

from __future__ import annotations

import gc
import time

YOUNG = 20_000  # the youngest generation's threshold after settle() (CPython's default: 700)

_settled = False
_gc_cpu_s = 0.0
_started: float | None = None


def _clock(phase: str, info: dict) -> None:
    """gc.callbacks hook: sums the CPU time of this process's collections (thread time of
    the thread that collects: the collection runs in it, holding the GIL)."""
    global _gc_cpu_s, _started
    if phase == "start":
        _started = time.thread_time()
    elif _started is not None:
        _gc_cpu_s += time.thread_time() - _started
        _started = None


def settle(young: int = YOUNG) -> bool:
    """Collect everything, freeze what is alive, raise the youngest generation's threshold
    to ``young``, and start counting collection time. The first call in a process does it
    (True); later calls do nothing (False)."""
    global _settled
    if _settled:
        return False
    _settled = True
    gc.collect()
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(young, older, oldest)
    gc.callbacks.append(_clock)
    return True


def gc_cpu_s() -> float:
    """CPU seconds this process spent in garbage collections since :func:`settle` (0 before)."""
    return _gc_cpu_s
