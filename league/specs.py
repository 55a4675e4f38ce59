"""Player SPECs shared by the tools: `random`, `maxdamage`, `checkpoint:PATH`."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from league.players import BASELINES, PlayerSpecError


def player_factory(spec: str, seed: int = 0, greedy: bool = False) -> Callable:
    """A callable building poke-env players for SPEC (kwargs are poke-env Player's)."""
    if spec in BASELINES:
        return BASELINES[spec]
    if spec.startswith("checkpoint:"):
        from league.checkpoint import load_policy_net
        from league.sim.policy import NeuralPlayer, PolicyServer

        path = Path(spec.split(":", 1)[1])
        if not path.is_file():
            raise PlayerSpecError(f"player spec {spec!r}: no checkpoint file at {path}")
        server = PolicyServer(load_policy_net(path), name=str(path), greedy=greedy, seed=seed)
        return lambda **kw: NeuralPlayer(policy=server, **kw)
    raise PlayerSpecError(f"unknown player spec {spec!r}: expected one of {sorted(BASELINES)} or checkpoint:PATH")
