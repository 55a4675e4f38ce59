"""Compiled copies of the simulator's hottest pure-Python modules (issue 31).

The per-decision analysis and encoding (league/battle/) is plain Python. Cython compiles
those same files, unchanged and with Python's semantics (annotations are not read as C
types), into extension modules that run the same code faster: a decision x1.45-1.5 on
recorded battles, -15 % of the decisions' CPU in a live run (experiments/issue31_accel).
poke-env's battle state (:data:`EXTERNAL`: every protocol line and request of both sides
goes through it) is compiled the same way from its installed source, as it is: its
message handling x1.3 on recorded battles (experiments/issue31_accel_pokeenv). Nothing
in the sources depends on it: each compiled module is used only while it was built from
the source file as it is now, so an edited (or upgraded) module runs as plain Python
until it is rebuilt, never as a stale build.

- ``python -m league.accel build`` (``make setup`` runs it): compile what is missing or
  stale as ``NAME.HASH.accel.<ABI>.so`` (a name the import system never picks up by
  itself): next to each of our sources; in :data:`BUILD` for an installed package's
  module (installed packages are never written to). Without a C compiler it says so and
  the project runs as plain Python.
- ``python -m league.accel status``: each module, compiled / stale / not built.
- ``LEAGUE_ACCEL=0``: plain Python everywhere (profiles: cProfile does not see inside
  compiled functions); ``LEAGUE_ACCEL=league``: only our modules compiled, poke-env plain
  (A/B benches of :data:`EXTERNAL`); ``LEAGUE_ACCEL_PLAIN=NAME,...``: those modules plain,
  the rest compiled (A/B benches of single modules).

:func:`install` (called by ``league/__init__.py``) puts a finder first on
``sys.meta_path`` that answers only for :data:`MODULES` and :data:`EXTERNAL`, and only
with a fresh build.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]  # league/

# The modules of a decision (observation, mask, analysis, damage), by the simulator's
# profile; each must import as plain Python too.
MODULES: tuple[str, ...] = (
    "league.battle.obs",
    "league.battle.analysis",
    "league.battle.damage",
    "league.battle.fighter",
    "league.battle.actions",
    "league.battle.dex",
    "league.battle.context",
    "league.battle.moves",
)

# poke-env's battle state, by the same profile (its parse_message / parse_request and the
# Pokemon and Move objects they update: ~17 % of a plain simulator's own time); compiled
# from the installed files, which must not read ``__file__`` (these four do not).
EXTERNAL: tuple[str, ...] = (
    "poke_env.battle.abstract_battle",
    "poke_env.battle.double_battle",
    "poke_env.battle.pokemon",
    "poke_env.battle.move",
)
BUILD = Path(__file__).resolve().parent / "build"  # the builds of EXTERNAL (git-ignored)

ENV = "LEAGUE_ACCEL"
PLAIN_ENV = "LEAGUE_ACCEL_PLAIN"
EXT_SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]  # e.g. .cpython-311-x86_64-linux-gnu.so
# Cython's directives: Python semantics (no C types from annotations), functions that
# behave as Python functions (binding: introspection, pickling by name).
DIRECTIVES = {"language_level": 3, "annotation_typing": False, "binding": True}


def enabled() -> bool:
    return os.environ.get(ENV, "1") != "0"


def source_of(fullname: str, root: Path = ROOT) -> Path:
    """``league.battle.obs`` -> ROOT/battle/obs.py."""
    parts = fullname.split(".")
    return root.joinpath(*parts[1:]).with_suffix(".py")


def installed_source(fullname: str) -> Path | None:
    """An installed package's module file (``poke_env.battle.pokemon`` ->
    site-packages/poke_env/battle/pokemon.py), found without importing anything; None
    where the package or the file is not there."""
    top, *rest = fullname.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]).joinpath(*rest).with_suffix(".py")
    return path if path.is_file() else None


def source_key(source: Path) -> str:
    """What a build is valid for: the source's bytes and the Python it was built for."""
    h = hashlib.sha256(source.read_bytes())
    h.update(sys.version.encode())
    return h.hexdigest()[:16]


def _place(source: Path, fullname: str | None, where: Path | None) -> tuple[Path, str]:
    """The folder a module's builds go to and the name they start with: beside the source
    and named by its stem, or (an installed package's module) in ``where`` and named by
    its full name."""
    return (source.parent, source.stem) if where is None else (where, str(fullname))


def artifact_of(source: Path, fullname: str | None = None, where: Path | None = None) -> Path:
    """The compiled module built from ``source`` as it is now (placed as :func:`_place` says)."""
    folder, stem = _place(source, fullname, where)
    return folder / f"{stem}.{source_key(source)}.accel{EXT_SUFFIX}"


def _builds(source: Path, fullname: str | None = None, where: Path | None = None) -> list[Path]:
    folder, stem = _place(source, fullname, where)
    return sorted(folder.glob(f"{stem}.*.accel{EXT_SUFFIX}"))


def targets() -> dict[str, tuple[Path, Path | None]]:
    """Every module compiled: name -> (source, where its builds go: None beside it).
    An :data:`EXTERNAL` module whose package is not installed is left out, and all of them
    with ``LEAGUE_ACCEL=league``."""
    out: dict[str, tuple[Path, Path | None]] = {m: (source_of(m), None) for m in MODULES}
    for m in EXTERNAL if os.environ.get(ENV) != "league" else ():
        if (src := installed_source(m)) is not None:
            out[m] = (src, BUILD)
    for m in plain_modules():
        out.pop(m, None)
    return out


def plain_modules() -> set[str]:
    """The modules ``LEAGUE_ACCEL_PLAIN`` (comma-separated names) keeps plain while the
    rest are served compiled: one module's gain, A/B in one bench
    (``tools.bench ab --a env:LEAGUE_ACCEL_PLAIN=league.sim.policy``)."""
    return {m.strip() for m in os.environ.get(PLAIN_ENV, "").split(",") if m.strip()}


class AccelFinder(importlib.abc.MetaPathFinder):
    """Finds the fresh compiled build of each module in ``modules`` (name -> (source, the
    folder its builds go to, None beside it), as :func:`targets` gives); ``None`` (the
    ordinary import of the source) when there is none."""

    def __init__(self, modules: dict[str, tuple[Path, Path | None]]):
        self.modules = dict(modules)

    def find_spec(self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None):
        entry = self.modules.get(fullname)
        if entry is None:
            return None
        source, where = entry
        try:
            so = artifact_of(source, fullname, where)
        except OSError:
            return None
        if not so.is_file():
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(so))
        return importlib.util.spec_from_file_location(fullname, so, loader=loader)


def install() -> None:
    """Serve the compiled builds (unless ``LEAGUE_ACCEL=0``); idempotent."""
    if not enabled() or any(isinstance(f, AccelFinder) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, AccelFinder(targets()))


def status(modules: Iterable[str] | None = None) -> dict[str, str]:
    """``{module: "compiled" | "stale" | "not built"}`` for the builds on disk (every
    module of :func:`targets` by default)."""
    every = targets()
    out = {}
    for m in every if modules is None else modules:
        src, where = every[m]
        if artifact_of(src, m, where).is_file():
            out[m] = "compiled"
        else:
            out[m] = "stale" if _builds(src, m, where) else "not built"
    return out


def mode() -> str:
    """``compiled`` (every module served compiled), ``plain`` (none: LEAGUE_ACCEL=0 or
    nothing built) or ``partial``: what a run's summary and a bench's JSON record."""
    if not enabled():
        return "plain"
    st = status()
    n = sum(s == "compiled" for s in st.values())
    return "compiled" if n == len(st) else "plain" if n == 0 else "partial"


def note() -> str | None:
    """One line for a run's start when some module will run as plain Python though
    compiling is on, naming the fix; None otherwise."""
    if not enabled():
        return None
    st = status()
    slow = [m for m, s in st.items() if s != "compiled"]
    if not slow:
        return None
    return (
        f"note: {len(slow)} of the simulator's {len(st)} compiled modules run as plain Python (not built, or "
        "edited or upgraded since): `make accel` compiles them (a decision 1.2-1.5x faster, the same observations)"
    )


def loaded() -> dict[str, bool]:
    """Whether each of :data:`MODULES` and :data:`EXTERNAL` already imported in this
    process is the compiled one."""
    return {
        m: (getattr(sys.modules[m], "__file__", None) or "").endswith(EXT_SUFFIX)
        for m in (*MODULES, *EXTERNAL)
        if m in sys.modules
    }


def compiler() -> str | None:
    """The C compiler the build would use, or None."""
    cc = os.environ.get("CC", "cc").split()[0]
    return shutil.which(cc)


class BuildError(RuntimeError):
    pass


def compile_module(fullname: str, source: Path, out: Path) -> None:
    """Compile ``source`` as module ``fullname`` into the extension ``out`` (written
    atomically: a half-written build is never loaded). Runs Cython and the C compiler in
    a child Python, in a scratch directory."""
    with tempfile.TemporaryDirectory(prefix="league-accel-") as tmp:
        script = (
            "import json, sys\n"
            "from setuptools import Extension, setup\n"
            "from Cython.Build import cythonize\n"
            "name, src, directives = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])\n"
            "sys.argv = [sys.argv[0], 'build_ext', '--build-lib', 'lib', '--build-temp', 'tmp']\n"
            "setup(name='league-accel', script_args=sys.argv[1:], ext_modules=cythonize(\n"
            "    [Extension(name, [src], extra_compile_args=['-O2'])], compiler_directives=directives,\n"
            "    build_dir='c', quiet=True))\n"
        )
        proc = subprocess.run(
            [sys.executable, "-c", script, fullname, str(source), json.dumps(DIRECTIVES)],
            cwd=tmp,
            capture_output=True,
            text=True,
        )
        built = list(Path(tmp, "lib").rglob(f"*{EXT_SUFFIX}"))
        if proc.returncode != 0 or len(built) != 1:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-12:]
            raise BuildError(f"compiling {source} failed:\n" + "\n".join(tail))
        out.parent.mkdir(parents=True, exist_ok=True)
        part = out.with_name(out.name + ".part")
        shutil.copyfile(built[0], part)
        os.replace(part, out)


def build(modules: Sequence[str] | None = None, force: bool = False, log=print) -> dict[str, str]:
    """Compile each module (every one of :func:`targets` by default) whose build is missing
    or stale (all with ``force``); remove the builds of older sources. Returns
    :func:`status` after."""
    every = targets()
    modules = list(every) if modules is None else list(modules)
    wanted = [(m, every[m][0], every[m][1], artifact_of(every[m][0], m, every[m][1])) for m in modules]
    todo = [(m, src, so) for m, src, _, so in wanted if force or not so.is_file()]
    if todo:
        try:
            import Cython  # noqa: F401
        except ImportError as e:
            raise BuildError(
                "Cython is not installed in this environment: `make setup` installs it (pyproject.toml)"
            ) from e
        if compiler() is None:
            raise BuildError(
                "no C compiler (cc) on PATH: install one (Debian: apt install gcc) and run "
                "`make accel`; until then the project runs as plain Python"
            )
        from concurrent.futures import ThreadPoolExecutor

        log(f"league.accel: compiling {len(todo)} modules ({', '.join(m for m, _, _ in todo)})")
        with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
            for f in [pool.submit(compile_module, m, src, so) for m, src, so in todo]:
                f.result()
    for m, src, where, keep in wanted:
        for old in _builds(src, m, where):
            if old != keep:
                old.unlink(missing_ok=True)
    return status(modules)


def clean(modules: Iterable[str] | None = None) -> int:
    every = targets()
    n = 0
    for m in every if modules is None else modules:
        src, where = every[m]
        for so in _builds(src, m, where):
            so.unlink(missing_ok=True)
            n += 1
    return n
