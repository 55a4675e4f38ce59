"""Locate Node.js and the pinned `pokemon-showdown` npm package.

Every entry point that needs Showdown calls :func:`locate_showdown` before any
work starts, so a missing Node or a missing package is one clear error that
names the command that fixes it. Looked for, in order: ``LEAGUE_SHOWDOWN_DIR``, the
checkout's node_modules (``make setup``), the working directory's, and the user cache
(``LEAGUE_CACHE_DIR``, default ``~/.cache/league``). An installed package (no checkout)
with none of them installs the pinned version into the user cache on first use, with
one message, by npm.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

PINNED_VERSION = "0.11.11"
PROJECT_ROOT = Path(__file__).resolve().parents[2]
NPM_FLAGS = ["--omit=optional", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline"]


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
    dirs.append(cache_prefix() / "node_modules" / "pokemon-showdown")
    return dirs


def cache_prefix() -> Path:
    """Where an installed package keeps its own Showdown: the user cache, per version."""
    root = (
        os.environ.get("LEAGUE_CACHE_DIR")
        or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "league"
    )
    return Path(root) / f"showdown-{PINNED_VERSION}"


def in_checkout() -> bool:
    """True when this code runs from the project's checkout (its package.json pins Showdown)."""
    return (PROJECT_ROOT / "package.json").is_file() and (PROJECT_ROOT / "league" / "run.py").is_file()


def install_into_cache() -> None:
    """``npm install pokemon-showdown@PINNED`` into :func:`cache_prefix` (atomically: a
    temporary prefix renamed into place), one message on stderr; npm's own error otherwise."""
    import sys
    import tempfile

    npm = shutil.which("npm")
    if npm is None:
        raise ShowdownSetupError(
            f"pokemon-showdown@{PINNED_VERSION} is not installed and npm was not found to install it: install "
            "npm (e.g. `apt-get install npm`), or point LEAGUE_SHOWDOWN_DIR at an installed node_modules/pokemon-showdown"
        )
    dest = cache_prefix()
    dest.parent.mkdir(parents=True, exist_ok=True)
    print(f"league: installing pokemon-showdown@{PINNED_VERSION} into {dest} (once) ...", file=sys.stderr, flush=True)
    tmp = Path(tempfile.mkdtemp(prefix=".showdown-", dir=dest.parent))
    out = subprocess.run(
        [npm, "install", "--prefix", str(tmp), *NPM_FLAGS, f"pokemon-showdown@{PINNED_VERSION}"],
        capture_output=True,
        text=True,
        timeout=900,
    )
    if out.returncode != 0:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ShowdownSetupError(
            f"npm could not install pokemon-showdown@{PINNED_VERSION} into {dest} (exit {out.returncode}):\n"
            f"{out.stderr[-1500:]}\nInstall it yourself and set LEAGUE_SHOWDOWN_DIR to its node_modules/pokemon-showdown"
        )
    try:
        tmp.rename(dest)
    except OSError:  # another process installed it meanwhile
        shutil.rmtree(tmp, ignore_errors=True)


def _found(node: str) -> ShowdownInstall | None:
    for d in _candidate_dirs():
        launcher = d / "pokemon-showdown"
        if launcher.is_file() and (d / "dist" / "sim" / "index.js").is_file():
            import json

            version = json.loads((d / "package.json").read_text())["version"]
            return ShowdownInstall(node=node, package_dir=d, version=version)
    return None


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

    found = _found(node)
    if found is None and not in_checkout() and not os.environ.get("LEAGUE_SHOWDOWN_DIR"):
        install_into_cache()
        found = _found(node)
    if found is not None:
        return found
    tried = ", ".join(str(d) for d in _candidate_dirs())
    raise ShowdownSetupError(
        f"The npm package pokemon-showdown@{PINNED_VERSION} is not installed (looked in {tried}). "
        f"Run `make setup` (it runs `npm ci --omit=optional --ignore-scripts`) in {PROJECT_ROOT}, "
        "or point LEAGUE_SHOWDOWN_DIR at an installed node_modules/pokemon-showdown."
    )
