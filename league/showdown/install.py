"""Locate Node.js and the pinned `pokemon-showdown` npm package.

Every entry point that needs Showdown calls :func:`locate_showdown` before any
work starts, so a missing Node or a missing package is one clear error that
names the command that fixes it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

PINNED_VERSION = "0.11.11"
PROJECT_ROOT = Path(__file__).resolve().parents[2]


class ShowdownSetupError(RuntimeError):
    """Node.js or the pokemon-showdown package is missing or unusable."""


@dataclass(frozen=True)
class ShowdownInstall:
    node: str  # path of the node executable
    package_dir: Path  # .../node_modules/pokemon-showdown
    version: str

    @property
    def node_modules(self) -> Path:
        return self.package_dir.parent


def _candidate_dirs() -> list[Path]:
    dirs = []
    env = os.environ.get("LEAGUE_SHOWDOWN_DIR")
    if env:
        dirs.append(Path(env))
    dirs.append(PROJECT_ROOT / "node_modules" / "pokemon-showdown")
    dirs.append(Path.cwd() / "node_modules" / "pokemon-showdown")
    return dirs


def locate_showdown() -> ShowdownInstall:
    """Return the Node executable and the Showdown package, or raise one clear error."""
    node = shutil.which("node")
    if node is None:
        raise ShowdownSetupError(
            "Node.js was not found on PATH. Install Node.js >= 18 "
            "(e.g. `apt-get install nodejs npm`), then run `make setup` in the project root."
        )
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=20)
        major = int(out.stdout.strip().lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.TimeoutExpired) as e:
        raise ShowdownSetupError(f"`{node} --version` failed ({e}); reinstall Node.js >= 18") from e
    if major < 18:
        raise ShowdownSetupError(f"Node.js {out.stdout.strip()} is too old: install Node.js >= 18")

    for d in _candidate_dirs():
        launcher = d / "pokemon-showdown"
        if launcher.is_file() and (d / "dist" / "sim" / "index.js").is_file():
            import json

            version = json.loads((d / "package.json").read_text())["version"]
            return ShowdownInstall(node=node, package_dir=d, version=version)
    tried = ", ".join(str(d) for d in _candidate_dirs())
    raise ShowdownSetupError(
        f"The npm package pokemon-showdown@{PINNED_VERSION} is not installed (looked in {tried}). "
        f"Run `make setup` (it runs `npm ci --omit=optional --ignore-scripts`) in {PROJECT_ROOT}, "
        "or point LEAGUE_SHOWDOWN_DIR at an installed node_modules/pokemon-showdown."
    )
