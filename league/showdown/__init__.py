"""Pokemon Showdown for battles (npm package `pokemon-showdown`): local servers
(``ShowdownFleet``, backend "server") or server-less simulator workers (``StreamFleet``,
backend "stream"); :func:`make_fleet` picks one by name."""

from league.showdown.fleet import (
    ShowdownFleet,
    ShowdownStartError,
    free_port,
    processes_under,
    reap_strays,
    websocket_ok,
)
from league.showdown.install import ShowdownInstall, ShowdownSetupError, locate_showdown
from league.showdown.stream import StreamFleet, StreamStartError

BACKENDS = ("server", "stream")
Fleet = ShowdownFleet | StreamFleet  # what play_matches and the simulator take


def make_fleet(backend: str, n: int, run_dir, **kwargs):
    """``n`` Showdown servers (backend "server") or stream workers ("stream")."""
    if backend == "server":
        return ShowdownFleet(n, run_dir, **kwargs)
    if backend == "stream":
        return StreamFleet(n, run_dir, **kwargs)
    raise ValueError(f"unknown Showdown backend {backend!r}: use one of {', '.join(BACKENDS)}")


__all__ = [
    "BACKENDS",
    "Fleet",
    "ShowdownFleet",
    "ShowdownInstall",
    "ShowdownSetupError",
    "ShowdownStartError",
    "StreamFleet",
    "StreamStartError",
    "free_port",
    "locate_showdown",
    "make_fleet",
    "processes_under",
    "reap_strays",
    "websocket_ok",
]
