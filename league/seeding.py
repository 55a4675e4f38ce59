"""Seeds that are the same in every process and every run.

Python salts ``hash(str)`` per process (PYTHONHASHSEED), so ``hash(name)`` gives a
different seed in the simulator, the learner and the next run: use ``stable_seed``.
"""

from __future__ import annotations

import hashlib


def stable_seed(*parts, bits: int = 31) -> int:
    """A non-negative integer < 2**bits determined by ``parts`` (their ``str``) alone."""
    h = hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(h, "little") & ((1 << bits) - 1)
