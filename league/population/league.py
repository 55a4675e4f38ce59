"""The league as the main process keeps it: registry, payoff table, ratings, snapshots.

It takes match results (from the simulator's matchmaker), the learner's checkpoint
notices, and the update counter; it freezes the main agent into ``past`` members by
the snapshot rule; it describes the league to the simulator (``message()``); it
persists registry and payoff table atomically under ``<run_dir>/league/``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path

from league.population.exploiters import ExploiterConfig
from league.population.payoff import PayoffTable, Ratings
from league.population.registry import FIXED_ROLES, Registry
from league.population.rules import SnapshotConfig, should_snapshot
from league.population.sampling import SamplerConfig

log = logging.getLogger(__name__)


@dataclass
class LeagueConfig:
    enabled: bool = True  # false: pure self-play, no league bookkeeping
    fixed: list[str] = field(default_factory=lambda: ["random", "maxdamage"])  # fixed baseline members
    payoff_decay: float = 0.995  # per-game decay of a pair's counts in the payoff table
    cache_size: int = 8  # frozen networks kept loaded in the simulator (LRU)
    sampler: SamplerConfig = field(default_factory=SamplerConfig)
    snapshot: SnapshotConfig = field(default_factory=SnapshotConfig)
    exploiters: ExploiterConfig = field(default_factory=ExploiterConfig)


class LeagueManager:
    def __init__(self, cfg: LeagueConfig, run_dir: Path, resume: bool):
        self.cfg = cfg
        self.dir = Path(run_dir) / "league"
        self.registry_path = self.dir / "registry.json"
        self.payoff_path = self.dir / "payoff.json"
        self.ratings = Ratings()
        if resume and self.registry_path.exists():
            self.registry = Registry.load(self.registry_path)
            self.payoff = PayoffTable.load(self.payoff_path) if self.payoff_path.exists() else PayoffTable(cfg.payoff_decay)
            for m in self.registry.members.values():  # exploiters cut off by the restart
                if m.status == "training":
                    m.status, m.note = "discarded", "interrupted by a restart of the run"
        else:
            self.registry = Registry()
            self.registry.add("main", id="main")
            for role in cfg.fixed:
                if role not in FIXED_ROLES or role == "bc":
                    raise ValueError(f"league.fixed: {role!r} is not a fixed baseline (random, maxdamage)")
                self.registry.add(role, id=role)
            self.payoff = PayoffTable(cfg.payoff_decay)
        self.latest_checkpoint: tuple[str, int] | None = None
        self.dirty = True
        self.save()

    # ------------------------------------------------------------------ inputs
    def on_results(self, results: list) -> None:
        main = self.registry.get("main")
        for member, score in results:
            if member == "main" or member not in self.registry.members:
                continue
            self.payoff.update("main", member, float(score))
            self.ratings.update(main, self.registry.get(member), float(score))
        if results:
            self.dirty = True

    def on_checkpoint(self, path: str, updates: int) -> None:
        self.latest_checkpoint = (path, updates)
        self.registry.get("main").checkpoint = path

    def maybe_snapshot(self, updates: int) -> str | None:
        """Freeze the main agent into a ``past`` member when the rule says so."""
        if self.latest_checkpoint is None:
            return None
        pasts = sorted(self.registry.by_role("past"), key=lambda m: m.created_update)
        last = pasts[-1] if pasts else None
        wr = self.payoff.win_rate("main", last.id) if last else 0.5
        games = self.payoff.raw_games.get(("main", last.id), 0) if last else 0
        ok, why = should_snapshot(updates, last.created_update if last else None, wr, games, self.cfg.snapshot)
        if not ok:
            return None
        return self.freeze_main(why)

    def freeze_main(self, note: str) -> str | None:
        """Add the main agent's latest checkpoint as a frozen ``past`` member (its id)."""
        if self.latest_checkpoint is None:
            return None
        path, ck_updates = self.latest_checkpoint
        m = self.registry.add("past", parent="main", created_update=ck_updates)
        dest = self.dir / f"{m.id}.pt"
        freeze_weights(path, dest)
        m.checkpoint = str(dest)
        main = self.registry.get("main")
        m.mu, m.sigma = main.mu, main.sigma
        m.note = note
        log.info("snapshot %s at update %d: %s", m.id, ck_updates, note)
        self.dirty = True
        self.save()
        return m.id

    # ------------------------------------------------------------------ outputs
    def message(self) -> dict:
        members, pools = {}, {"past": [], "exploiters": [], "fixed": []}
        for m in sorted(self.registry.active(), key=lambda m: m.created_update):
            if m.id == "main":
                continue
            members[m.id] = {"role": m.role, "checkpoint": m.checkpoint, "team": m.team}
            pools[m.category].append(m.id)
        wr = {mid: self.payoff.win_rate("main", mid) for mid in members}
        return {"members": members, "pools": pools, "win_rates": wr}

    def summary(self) -> dict:
        return {
            "members": self.registry.count_by_role(),
            "exploiters_admitted": sum(1 for m in self.registry.members.values()
                                       if m.role == "main_exploiter" and m.status == "active"),
            "exploiters_discarded": sum(1 for m in self.registry.members.values() if m.status == "discarded"),
        }

    def log(self, tb, step: int) -> None:
        for m in self.registry.active():
            tb.add_scalar(f"league/rating/{m.id}", m.mu - 3 * m.sigma, step)
            if m.id != "main":
                tb.add_scalar(f"league/win_rate/{m.id}", self.payoff.win_rate("main", m.id), step)
        for role, n in self.registry.count_by_role().items():
            tb.add_scalar(f"league/members/{role}", n, step)

    def save(self) -> None:
        if not self.dirty:
            return
        self.registry.save(self.registry_path)
        self.payoff.save(self.payoff_path)
        self.dirty = False


def freeze_weights(checkpoint: str | Path, dest: Path) -> None:
    """Write a frozen member's file: the online network and model config of a checkpoint."""
    from league.checkpoint import atomic_torch_save, load_checkpoint

    state = load_checkpoint(checkpoint)
    atomic_torch_save({"learner": {"net": state["learner"]["net"]}, "model_cfg": state["model_cfg"],
                       "source": str(checkpoint)}, dest)
