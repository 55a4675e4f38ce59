"""Team repository: PokePaste pool directories, one per format, checked by Showdown's validator.

A pool is a directory of ``*.txt`` files, one team each, in Showdown's export
("PokePaste") format. It may hold sub-directories, one per archetype
(``pool/trickroom/*.txt``): a team's ``tag`` is its sub-directory's path in the pool
(``trickroom``, ``trickroom/hard``; None for a file at the top), its name that path and
its stem (``trickroom/C11``), and ``sample``/``sample_n``/``list`` with ``tag=`` draw
from that sub-pool and everything under it (:func:`select_tag`).
:meth:`TeamRepository.load` validates a whole pool with one Node process running
Showdown's own ``TeamValidator`` and raises one :class:`TeamValidationError` naming
every rejected file with the validator's words, before any battle starts. Valid teams
carry their packed form, which is what the Showdown protocol sends.
"""

from __future__ import annotations

import builtins
import json
import random
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from league.atomic import atomic_write_text
from league.showdown.formats import check_format
from league.showdown.install import ShowdownInstall, locate_showdown

DEFAULT_POOLS_DIR = Path(__file__).resolve().parent / "default"
VALIDATOR_JS = Path(__file__).resolve().parents[1] / "showdown" / "validate_teams.js"
GENERATOR_JS = Path(__file__).resolve().parents[1] / "showdown" / "generate_teams.js"
GENERATED_TAG = "generated"


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
    tag: str | None = None  # its sub-directory in the pool (an archetype), None at the top

    @property
    def species(self) -> list[str]:
        return [p.split("|")[0] or p.split("|")[1] for p in self.packed.split("]")]


TAG = re.compile(r"[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*")  # a sub-pool: sub-directory names joined by /


def valid_tag(tag) -> bool:
    """A relative path of plain directory names: ``trickroom``, ``trickroom/hard``."""
    return isinstance(tag, str) and TAG.fullmatch(tag) is not None and not {".", ".."} & set(tag.split("/"))


def has_tag(team: Team, tag: str) -> bool:
    """Whether ``team`` is in sub-pool ``tag`` (its directory or one under it)."""
    return team.tag is not None and (team.tag == tag or team.tag.startswith(tag + "/"))


def select_tag(teams: list[Team], tag: str | None) -> list[Team]:
    """The teams of sub-pool ``tag`` (None: all of them), in pool order. A tag with no
    team is a TeamPoolError naming the tags there are."""
    if tag is None:
        return list(teams)
    if not valid_tag(tag):
        raise TeamPoolError(f"team tag {tag!r} must be a sub-directory of the pool, e.g. trickroom or trickroom/hard")
    chosen = [t for t in teams if has_tag(t, tag)]
    if not chosen:
        tags = sorted({t.tag for t in teams if t.tag})
        raise TeamPoolError(
            f"no team tagged {tag!r} in the pool: its sub-directories are "
            f"{', '.join(tags) if tags else 'none (every team is at the top)'}"
        )
    return chosen


def sample_teams(
    teams: list[Team], n: int, rng: random.Random, replace: bool = False, tag: str | None = None
) -> list[Team]:
    """``n`` teams of sub-pool ``tag`` drawn by ``rng``: distinct unless ``replace``."""
    pool = select_tag(teams, tag)
    if replace:
        return [rng.choice(pool) for _ in range(n)]
    if n > len(pool):
        where = f"sub-pool {tag!r}" if tag else "pool"
        raise TeamPoolError(f"asked for {n} distinct teams but the {where} has {len(pool)}")
    return rng.sample(pool, n)


def pool_files(pool_dir: Path) -> list[tuple[Path, str | None]]:
    """Every ``*.txt`` of a pool directory and its sub-directories (hidden ones skipped),
    with its tag: top-level files first, then each sub-directory's, sorted."""
    found = []
    for f in sorted(pool_dir.rglob("*.txt")):
        rel = f.relative_to(pool_dir)
        if any(part.startswith(".") for part in rel.parts) or not f.is_file():
            continue
        found.append((f, rel.parent.as_posix() if len(rel.parts) > 1 else None))
    return sorted(found, key=lambda ft: (ft[1] is not None, ft[1] or "", ft[0].name))


def _node_json(
    script: Path, args: list[str], what: str, stdin: str = "", install: ShowdownInstall | None = None
) -> dict:
    """Run one of our Node scripts over the Showdown package; its JSON answer, or one
    TeamPoolError naming ``what`` (a timeout, a crash, or the script's own ``error``)."""
    install = install or locate_showdown()
    try:
        out = subprocess.run(
            [install.node, str(script), str(install.package_dir), *args],
            input=stdin,
            capture_output=True,
            text=True,
            timeout=300,
        )
    except subprocess.TimeoutExpired as e:
        raise TeamPoolError(f"{what} timed out") from e
    if out.returncode != 0:
        raise TeamPoolError(f"{what} failed (exit {out.returncode}):\n{out.stderr[-2000:]}")
    data = json.loads(out.stdout)
    if "error" in data:
        raise TeamPoolError(f"{what}: {data['error']}")
    return data


def validate_texts(
    format_id: str, named_texts: list[tuple[str, str]], install: ShowdownInstall | None = None
) -> dict[str, tuple[list[str], str | None]]:
    """Run Showdown's validator over many teams in one Node process.

    Returns ``{name: (problems, packed_or_None)}``.
    """
    payload = json.dumps([{"name": n, "text": t} for n, t in named_texts])
    data = _node_json(
        VALIDATOR_JS, [format_id], f"Showdown's team validator ({len(named_texts)} teams)", payload, install
    )
    return {r["name"]: (r["problems"], r["packed"]) for r in data["results"]}


def generate_texts(format_id: str, n: int, seed: int, install: ShowdownInstall | None = None) -> list[tuple[str, str]]:
    """``n`` teams legal in ``format_id`` made from Showdown's own random-battle sets
    (league/showdown/generate_teams.js: its random doubles sets for Scarlet/Violet
    formats, its Champions random battle's for Champions formats; each set levelled to 50
    and checked alone, one species per dex number, items made distinct, each team
    validated whole by the format's validator). Deterministic in ``seed`` (for one
    Showdown version). Returns ``[(export text, packed)]``; a format the sets cannot fill
    ``n`` teams of is a TeamPoolError naming it."""
    data = _node_json(
        GENERATOR_JS, [format_id, str(n), str(seed)], f"the team generator ({n} {format_id} teams)", install=install
    )
    if len(data["teams"]) < n:
        raise TeamPoolError(
            f"Showdown's random-battle sets make only {len(data['teams'])} of {n} teams legal in "
            f"{format_id} ({data['sets']} legal sets): ask for fewer (showdown.generated_teams) or "
            "give a pool of your own (showdown.teams)"
        )
    return [(t["text"], t["packed"]) for t in data["teams"]]


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
        for the format) and in its sub-directories (tagged by them). A format the league
        cannot play is a FormatError first."""
        check_format(format_id, self.install)
        if pool_dir is None and not (DEFAULT_POOLS_DIR / format_id).is_dir():
            shipped = ", ".join(sorted(p.name for p in DEFAULT_POOLS_DIR.iterdir() if p.is_dir()))
            raise TeamPoolError(
                f"no team pool ships for {format_id} (league/teams/default/ has {shipped}): "
                "give a directory of PokePaste .txt teams legal in it "
                "(showdown.teams=DIR; --teams DIR in the tools)"
            )
        d = Path(pool_dir) if pool_dir is not None else DEFAULT_POOLS_DIR / format_id
        if not d.is_dir():
            raise TeamPoolError(f"team pool directory {d} does not exist (format {format_id})")
        files = pool_files(d)
        if not files:
            raise TeamPoolError(f"team pool directory {d} holds no *.txt team files")
        teams = self._validated(format_id, [f for f, _ in files], {f: tag for f, tag in files})
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

    def _validated(self, format_id: str, files: list[Path], tags: dict[Path, str | None] | None = None) -> list[Team]:
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
        tags = tags or {}

        def team(n: str, t: str) -> Team:
            tag, packed = tags.get(Path(n)), results[n][1]
            assert packed is not None  # (every team passed the validator, which packs it)
            return Team(f"{tag}/{Path(n).stem}" if tag else Path(n).stem, Path(n), t, packed, tag)

        return [team(n, t) for n, t in texts]

    def generate(self, format_id: str, n: int, seed: int, out_dir: str | Path) -> list[Team]:
        """Add ``n`` generated teams (:func:`generate_texts`) to the loaded pool of
        ``format_id`` under the tag ``generated``, each written (atomically) to
        ``out_dir/gen-NNNN.txt`` so that a run's teams can be read and replayed."""
        if format_id not in self._pools:
            raise TeamPoolError(f"no team pool loaded for {format_id}; call load() first")
        d = Path(out_dir)
        d.mkdir(parents=True, exist_ok=True)
        made = []
        for i, (text, packed) in enumerate(generate_texts(format_id, n, seed, self.install)):
            path = d / f"gen-{i:04d}.txt"
            atomic_write_text(path, text)
            made.append(Team(f"{GENERATED_TAG}/{path.stem}", path, text, packed, GENERATED_TAG))
        self._pools[format_id] = [t for t in self._pools[format_id] if t.tag != GENERATED_TAG] + made
        return made

    def list(self, format_id: str, tag: str | None = None) -> list[Team]:
        """The loaded pool's teams, or those of sub-pool ``tag``."""
        if format_id not in self._pools:
            raise TeamPoolError(f"no team pool loaded for {format_id}; call load() first")
        return select_tag(self._pools[format_id], tag)

    def tags(self, format_id: str) -> builtins.list[str]:
        """The sub-pools (archetypes) of the loaded pool."""
        return sorted({t.tag for t in self.list(format_id) if t.tag})

    def get(self, format_id: str, name: str) -> Team:
        for t in self.list(format_id):
            if t.name == name:
                return t
        raise KeyError(f"no team named {name!r} in the {format_id} pool")

    # ------------------------------------------------------------------ sampling
    def sample(self, format_id: str, rng: random.Random | None = None, tag: str | None = None) -> Team:
        return (rng or random).choice(self.list(format_id, tag))

    def sample_n(
        self, format_id: str, n: int, rng: random.Random | None = None, replace: bool = False, tag: str | None = None
    ) -> builtins.list[Team]:
        """``n`` teams (distinct unless ``replace``) of the pool, or of sub-pool ``tag``
        (the seed's ``sample_n_teams(format, "trickroom")``)."""
        return sample_teams(self.list(format_id), n, rng or random.Random(), replace, tag)

    # ------------------------------------------------------------------ saving
    def save(
        self,
        format_id: str,
        name: str,
        text: str,
        pool_dir: str | Path | None = None,
        validate: bool = True,
        tag: str | None = None,
    ) -> Team:
        """Validate a team and write it atomically as ``<pool_dir>/<name>.txt`` (with
        ``tag``: ``<pool_dir>/<tag>/<name>.txt``, in that sub-pool)."""
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
            raise TeamPoolError(f"team name {name!r} must match [A-Za-z0-9_.-]+")
        if tag is not None and not valid_tag(tag):
            raise TeamPoolError(f"team tag {tag!r} must be sub-directory names joined by /, e.g. trickroom")
        d = Path(pool_dir) if pool_dir is not None else self._dirs.get(format_id, DEFAULT_POOLS_DIR / format_id)
        if tag is not None:
            d = d / tag
        probs, packed = validate_texts(format_id, [(name, text)], self.install)[name] if validate else ([], None)
        if probs:
            raise TeamValidationError(format_id, {name: probs})
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"{name}.txt"
        atomic_write_text(path, text)
        team = Team(f"{tag}/{name}" if tag else name, path, text, packed or "", tag)
        if format_id in self._pools:
            self._pools[format_id] = [t for t in self._pools[format_id] if t.name != name] + [team]
        return team
