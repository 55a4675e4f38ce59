"""Local Pokemon Showdown servers (npm package `pokemon-showdown`)."""

from league.showdown.fleet import (ShowdownFleet, ShowdownStartError, free_port, processes_under, reap_strays,
                                   websocket_ok)
from league.showdown.install import ShowdownInstall, ShowdownSetupError, locate_showdown

__all__ = [
    "ShowdownFleet",
    "ShowdownInstall",
    "ShowdownSetupError",
    "ShowdownStartError",
    "free_port",
    "locate_showdown",
    "processes_under",
    "reap_strays",
    "websocket_ok",
]
