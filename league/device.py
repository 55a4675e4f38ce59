"""Where a network runs: the device settings (``learner.device``, ``sim.device``) and
their one reading, ``resolve_device``; the learner and the simulator's forwards share them."""

from __future__ import annotations

DEVICES = ("auto", "cpu", "cuda")  # auto: cuda when available


def resolve_device(name: str, key: str = "learner.device") -> str:
    """The torch device a setting names ("auto" read here: cuda when available, else cpu)."""
    import torch

    if name not in DEVICES:
        raise ValueError(f"{key}: {name!r} is not one of {DEVICES}")
    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return name
