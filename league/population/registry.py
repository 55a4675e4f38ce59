"""The league registry: every member, persisted atomically as JSON.

A member: id, role (``main``, ``main_exploiter``, ``league_exploiter``, ``past``, and
the fixed baselines ``random``, ``maxdamage``, ``bc``), checkpoint path, team (an
exploiter always plays the team it trained with; a main exploiter's is also written as
PokePaste beside its weights, ``team_file``), parent / victim ids, creation
update, rating (OpenSkill mu, sigma), games played, status (``active``, ``training``,
``retired``, ``discarded``). ``save()`` writes a temporary file, fsyncs it and renames
it over the old one: a kill -9 during a write leaves the previous registry readable.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROLES = ("main", "main_exploiter", "league_exploiter", "past", "random", "maxdamage", "heuristic", "bc")
SCRIPTED_ROLES = ("random", "maxdamage", "heuristic")  # the fixed baselines LeagueConfig.fixed may list
FIXED_ROLES = (*SCRIPTED_ROLES, "bc")  # bc: from LeagueConfig.bc_checkpoint
TRAINING_ROLES = ("main", "main_exploiter", "league_exploiter")
CATEGORY = {  # curriculum category of each role
    "main": "self",
    "past": "past",
    "main_exploiter": "exploiters",
    "league_exploiter": "exploiters",
    "random": "fixed",
    "maxdamage": "fixed",
    "heuristic": "fixed",
    "bc": "fixed",
}
CATEGORIES = tuple(dict.fromkeys(CATEGORY.values()))  # self, past, exploiters, fixed (SamplerConfig.base keys)


class RegistryError(RuntimeError):
    pass


@dataclass
class Member:
    id: str
    role: str
    checkpoint: str | None = None
    team: str | None = None  # packed team the member always plays (exploiters), else None
    team_name: str | None = None
    team_file: str | None = None  # main exploiters: its team in PokePaste, beside its weights (<id>_team.txt)
    parent: str | None = None  # member it was copied/frozen from
    victim: str | None = None  # main exploiters: the frozen main they train against
    created_update: int = 0
    mu: float = 25.0
    sigma: float = 25.0 / 3
    games: int = 0
    status: str = "active"
    note: str = ""

    @property
    def ordinal(self) -> float:
        """Conservative OpenSkill rating: mu - 3 sigma."""
        return self.mu - 3 * self.sigma

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise RegistryError(f"member {self.id}: unknown role {self.role!r} (expected one of {ROLES})")

    @property
    def category(self) -> str:
        return CATEGORY[self.role]

    @property
    def frozen(self) -> bool:
        return self.role not in TRAINING_ROLES or self.status != "training"


@dataclass
class Registry:
    members: dict[str, Member] = field(default_factory=dict)
    counter: int = 0  # for fresh ids

    # ------------------------------------------------------------------ edits
    def peek_id(self, role: str) -> str:
        """The id the next ``add(role)`` gives (nothing changes)."""
        return f"{role}-{self.counter + 1:04d}"

    def add(self, role: str, **kw) -> Member:
        self.counter += 1
        mid = kw.pop("id", None) or f"{role}-{self.counter:04d}"
        if mid in self.members:
            raise RegistryError(f"member id {mid} already exists")
        m = Member(id=mid, role=role, **kw)
        self.members[mid] = m
        return m

    def get(self, mid: str) -> Member:
        try:
            return self.members[mid]
        except KeyError:
            raise RegistryError(f"no member {mid!r} in the registry") from None

    def by_role(self, *roles: str, status: str | None = "active") -> list[Member]:
        return [m for m in self.members.values() if m.role in roles and (status is None or m.status == status)]

    def active(self) -> list[Member]:
        return [m for m in self.members.values() if m.status == "active"]

    def count_by_role(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for m in self.members.values():
            if m.status in ("active", "training"):
                out[m.role] = out.get(m.role, 0) + 1
        return out

    # ------------------------------------------------------------------ persistence
    def to_json(self) -> dict:
        return {"version": 1, "counter": self.counter, "members": [asdict(m) for m in self.members.values()]}

    @classmethod
    def from_json(cls, data: dict) -> Registry:
        reg = cls(counter=int(data.get("counter", 0)))
        for d in data["members"]:
            m = Member(**d)
            reg.members[m.id] = m
        return reg

    def save(self, path: str | Path) -> None:
        from league.atomic import atomic_write

        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, lambda f: json.dump(self.to_json(), f, indent=1))

    @classmethod
    def load(cls, path: str | Path) -> Registry:
        path = Path(path)
        try:
            return cls.from_json(json.loads(path.read_text()))
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise RegistryError(f"registry {path} cannot be read ({type(e).__name__}: {e})") from e
