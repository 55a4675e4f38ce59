"""Team repository: PokePaste pool directories, one per format, checked by Showdown's validator.

A pool is a directory of ``*.txt`` files, one team each, in Showdown's export
("PokePaste") format. :meth:`TeamRepository.load` validates a whole pool with one
Node process running Showdown's own ``TeamValidator`` and raises one
:class:`TeamValidationError` naming every rejected file with the validator's words,
before any battle starts. Valid teams carry their packed form, which is what the
Showdown protocol sends.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from league.showdown.formats import check_format
from league.showdown.install import ShowdownInstall, locate_showdown

DEFAULT_POOLS_DIR = Path(__file__).resolve().parent / "default"
VALIDATOR_JS = Path(__file__).resolve().parents[1] / "showdown" / "validate_teams.js"


class TeamPoolError(ValueError):
    """A pool directory is missing, empty, or the validator could not run."""


class TeamValidationError(TeamPoolError):
    """One or more team files are not legal in their format."""

    def __init__(self, format_id: str, problems: dict[str, list[str]]):
        self.format_id = format_id
        self.problems = problems
        lines = [f"{len(problems)} team file(s) rejected by Showdown's validator for {format_id}:"]
        for name, msgs in problems.items():
            lines.append(f"  {name}:")
            lines.extend(f"    - {m}" for m in msgs)
        lines.append("Fix or remove these files; no battle was started.")
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class Team:
    name: str  # file stem
    path: Path
    text: str  # export format, as in the file
    packed: str  # Showdown's packed format (what /utm sends)

    @property
    def species(self) -> list[str]:
        return [p.split("|")[0] or p.split("|")[1] for p in self.packed.split("]")]


def validate_texts(
    format_id: str, named_texts: list[tuple[str, str]], install: ShowdownInstall | None = None
) -> dict[str, tuple[list[str], str | None]]:
    """Run Showdown's validator over many teams in one Node process.

    Returns ``{name: (problems, packed_or_None)}``.
    """
    install = install or locate_showdown()
    payload = json.dumps([{"name": n, "text": t} for n, t in named_texts])
    try:
        out = subprocess.run(
            [install.node, str(VALIDATOR_JS), str(install.package_dir), format_id],
            input=payload,
            capture_output=True,
            text=True,
            timeout=300,
        )
    except subprocess.TimeoutExpired as e:
        raise TeamPoolError(f"Showdown's team validator timed out on {len(named_texts)} teams") from e
    if out.returncode != 0:
        raise TeamPoolError(f"Showdown's team validator failed (exit {out.returncode}):\n{out.stderr[-2000:]}")
    data = json.loads(out.stdout)
    if "error" in data:
        raise TeamPoolError(f"Showdown's team validator: {data['error']}")
    return {r["name"]: (r["problems"], r["packed"]) for r in data["results"]}


class TeamRepository:
    """Pools of validated teams keyed by format id."""

    def __init__(self, install: ShowdownInstall | None = None):
        self._install = install
        self._pools: dict[str, list[Team]] = {}
        self._dirs: dict[str, Path] = {}

    @property
    def install(self) -> ShowdownInstall:
        if self._install is None:
            self._install = locate_showdown()
        return self._install

    # ------------------------------------------------------------------ loading
    def load(self, format_id: str, pool_dir: str | Path | None = None) -> list[Team]:
        """Load and validate every ``*.txt`` in ``pool_dir`` (default: the pool shipped
        for the format). A format the league cannot play is a FormatError first."""
        check_format(format_id, self.install)
        if pool_dir is None and not (DEFAULT_POOLS_DIR / format_id).is_dir():
            shipped = ", ".join(sorted(p.name for p in DEFAULT_POOLS_DIR.iterdir() if p.is_dir()))
            raise TeamPoolError(f"no team pool ships for {format_id} (league/teams/default/ has {shipped}): "
                                "give a directory of PokePaste .txt teams legal in it "
                                "(showdown.teams=DIR; --teams DIR in the tools)")
        d = Path(pool_dir) if pool_dir is not None else DEFAULT_POOLS_DIR / format_id
        if not d.is_dir():
            raise TeamPoolError(f"team pool directory {d} does not exist (format {format_id})")
        files = sorted(d.glob("*.txt"))
        if not files:
            raise TeamPoolError(f"team pool directory {d} holds no *.txt team files")
        teams = self._validated(format_id, files)
        self._pools[format_id] = teams
        self._dirs[format_id] = d
        return teams

    def load_file(self, format_id: str, path: str | Path) -> list[Team]:
        """Load and validate one team file (a pool of one team)."""
        check_format(format_id, self.install)
        f = Path(path)
        if not f.is_file():
            raise TeamPoolError(f"team file {f} does not exist")
        teams = self._validated(format_id, [f])
        self._pools[format_id] = teams
        self._dirs[format_id] = f.parent
        return teams

    def _validated(self, format_id: str, files: list[Path]) -> list[Team]:
        texts = []
        for f in files:
            try:
                texts.append((str(f), f.read_text(encoding="utf-8")))
            except (OSError, UnicodeDecodeError) as e:
                raise TeamPoolError(f"cannot read team file {f}: {e}") from e
        results = validate_texts(format_id, texts, self.install)
        bad = {name: probs for name, (probs, _) in results.items() if probs}
        if bad:
            raise TeamValidationError(format_id, bad)
        return [Team(Path(n).stem, Path(n), t, results[n][1]) for n, t in texts]

    def list(self, format_id: str) -> list[Team]:
        if format_id not in self._pools:
            raise TeamPoolError(f"no team pool loaded for {format_id}; call load() first")
        return list(self._pools[format_id])

    def get(self, format_id: str, name: str) -> Team:
        for t in self.list(format_id):
            if t.name == name:
                return t
        raise KeyError(f"no team named {name!r} in the {format_id} pool")

    # ------------------------------------------------------------------ sampling
    def sample(self, format_id: str, rng: random.Random | None = None) -> Team:
        return (rng or random).choice(self.list(format_id))

    def sample_n(self, format_id: str, n: int, rng: random.Random | None = None, replace: bool = False) -> list[Team]:
        pool = self.list(format_id)
        rng = rng or random.Random()
        if replace:
            return [rng.choice(pool) for _ in range(n)]
        if n > len(pool):
            raise TeamPoolError(f"asked for {n} distinct teams but the {format_id} pool has {len(pool)}")
        return rng.sample(pool, n)

    # ------------------------------------------------------------------ saving
    def save(
        self, format_id: str, name: str, text: str, pool_dir: str | Path | None = None, validate: bool = True
    ) -> Team:
        """Validate a team and write it atomically as ``<pool_dir>/<name>.txt``."""
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
            raise TeamPoolError(f"team name {name!r} must match [A-Za-z0-9_.-]+")
        d = Path(pool_dir) if pool_dir is not None else self._dirs.get(format_id, DEFAULT_POOLS_DIR / format_id)
        probs, packed = validate_texts(format_id, [(name, text)], self.install)[name] if validate else ([], None)
        if probs:
            raise TeamValidationError(format_id, {name: probs})
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"{name}.txt"
        atomic_write_text(path, text)
        team = Team(name, path, text, packed or "")
        if format_id in self._pools:
            self._pools[format_id] = [t for t in self._pools[format_id] if t.name != name] + [team]
        return team


def atomic_write(path: Path, write) -> None:
    """Write a text file through ``write(file)`` into a temporary file beside it, fsync,
    then rename over ``path``: a crash at any point leaves the previous file whole."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write(path, lambda f: f.write(text))
