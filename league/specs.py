"""Player SPECs shared by the tools: `random`, `maxdamage`, `heuristic`, `checkpoint:PATH` (a league,
BC or exported checkpoint), `agent:NAME` (an agent shipped in league/agents/NAME.pt) and
`search:SPEC` (a network SPEC that looks one turn ahead on the stream worker before each move:
league/players/search.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from league.players import BASELINES, PlayerSpecError

AGENTS_DIR = Path(__file__).with_name("agents")


def shipped_agents() -> list[str]:
    return sorted(p.stem for p in AGENTS_DIR.glob("*.pt"))


def policy_path(spec: str) -> Path | None:
    """The network file of a `checkpoint:PATH` or `agent:NAME` SPEC (checked to exist),
    or None for any other SPEC."""
    if spec.startswith("checkpoint:"):
        path = Path(spec.split(":", 1)[1])
        if not path.is_file():
            raise PlayerSpecError(f"player spec {spec!r}: no checkpoint file at {path}")
        return path
    if spec.startswith("agent:"):
        name = spec.split(":", 1)[1]
        path = AGENTS_DIR / f"{name}.pt"
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_-]*", name) or not path.is_file():
            raise PlayerSpecError(
                f"player spec {spec!r}: no shipped agent of that name; shipped: "
                f"{', '.join('agent:' + a for a in shipped_agents()) or 'none'}"
            )
        return path
    return None


def check_spec_format(spec: str, format_id: str) -> None:
    """A network SPEC's checkpoint was trained on the game data ``format_id`` plays on
    (else one CheckpointError naming the SPEC and the fix); other SPECs pass."""
    path = policy_path(spec)
    if path is not None:
        from league.checkpoint import check_data, load_checkpoint

        check_data(load_checkpoint(path)["model_cfg"], format_id, spec)


def player_factory(
    spec: str,
    seed: int = 0,
    greedy: bool = False,
    mixin: type | None = None,
    format_id: str | None = None,
    backend: str | None = None,
    search: dict | None = None,
) -> Callable:
    """A callable building poke-env players for SPEC (kwargs are poke-env Player's).
    With ``mixin`` the players are of a class combining it with SPEC's player class
    (``class X(mixin, SpecPlayer)``), e.g. tools.play's online behaviour. With
    ``format_id`` a network SPEC is refused (CheckpointError) unless it was trained on
    that format's game data. ``backend`` (``stream`` or ``server``, where the players will
    play): a ``search:`` SPEC is refused on anything but ``stream``; ``search``: its
    players' settings (``k``, ``samples``, ``prior``: :class:`~league.players.search.SearchPlayer`)."""

    def cls(base: type) -> type:
        return base if mixin is None else type(f"{mixin.__name__}{base.__name__}", (mixin, base), {})

    if spec in BASELINES:
        return cls(BASELINES[spec])
    searching = spec.startswith("search:")
    if searching:
        inner = spec.split(":", 1)[1]
        if not inner.startswith(("checkpoint:", "agent:")):
            raise PlayerSpecError(
                f"player spec {spec!r}: search wraps a network: search:agent:NAME or search:checkpoint:PATH"
            )
        if backend not in (None, "stream"):
            raise PlayerSpecError(
                f"player spec {spec!r}: a search player copies its battles on a stream worker, which the "
                f"{backend} backend does not have; play it with --backend stream"
            )
        spec = inner
    path = policy_path(spec)
    if path is not None:
        from league.checkpoint import load_policy_net
        from league.sim.policy import NeuralPlayer, PolicyServer

        server = PolicyServer(
            load_policy_net(path, format_id=format_id, name=spec),
            name=str(path),
            greedy=greedy or searching,  # a search player's preview and forced switches: the arg-max
            seed=seed,
        )
        if searching:
            from league.players.search import SearchPlayer

            search_cls, options = cls(SearchPlayer), dict(search or {})
            return lambda **kw: search_cls(policy=server, **options, **kw)
        player_cls = cls(NeuralPlayer)
        return lambda **kw: player_cls(policy=server, **kw)
    raise PlayerSpecError(
        f"unknown player spec {spec!r}: expected one of {sorted(BASELINES)}, "
        f"checkpoint:PATH, agent:NAME or search:SPEC ({', '.join(shipped_agents()) or 'none shipped'})"
    )
