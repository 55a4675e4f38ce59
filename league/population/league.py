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

import numpy as np

from league.population.exploiters import ExploiterConfig, LeagueExploiterConfig
from league.population.payoff import PayoffTable, Ratings
from league.population.registry import SCRIPTED_ROLES, Registry
from league.population.rules import SnapshotConfig, should_snapshot
from league.population.sampling import SamplerConfig
from league.population.selection import SELECTION_SCORES, SelectionConfig, mutate, plan_selection

log = logging.getLogger(__name__)


@dataclass
class LeagueConfig:
    enabled: bool = True  # false: pure self-play, no league bookkeeping
    fixed: list[str] = field(default_factory=lambda: ["random", "maxdamage"])  # fixed baseline members (SCRIPTED_ROLES)
    payoff_decay: float = 0.995  # per-game decay of a pair's counts in the payoff table
    cache_size: int = 8  # frozen networks kept loaded in the simulator (LRU)
    # The opponent seat's trajectory, when a frozen network member (past self, bc,
    # exploiter) plays the main agent, is learning data for the main learner too, off
    # policy: v-trace weighs it by pi/mu clipped at learner.rnad.rho_vtrace / c_vtrace.
    learn_from_members: bool = False
    bc_checkpoint: str | None = None  # a behaviour-cloned checkpoint (tools.bc): the fixed member "bc"
    # evaluation rounds among frozen members (fill the payoff table for the Nash analysis)
    eval_every_s: float = 300.0  # 0: never
    eval_pairs: int = 3  # pairs per round: those with the fewest games so far
    eval_games: int = 10  # battles per pair
    # the rolling tournament behind strength/* (Elo against training step): a snapshot's
    # unplayed pairs with each of the previous K snapshots and each fixed baseline go first
    # in the evaluation rounds (0: fewest games first only)
    eval_previous: int = 2
    # each evaluation round: the pairwise total-variation distance between the members'
    # policies on fixed recorded states (league/population/diversity.py), diversity/*
    diversity: bool = True
    sampler: SamplerConfig = field(default_factory=SamplerConfig)
    snapshot: SnapshotConfig = field(default_factory=SnapshotConfig)
    exploiters: ExploiterConfig = field(default_factory=ExploiterConfig)
    league_exploiters: LeagueExploiterConfig = field(default_factory=LeagueExploiterConfig)
    selection: SelectionConfig = field(default_factory=SelectionConfig)


class LeagueManager:
    def __init__(self, cfg: LeagueConfig, run_dir: Path, resume: bool, state: dict | None = None):
        """``state``: the league as the checkpoint being resumed saw it (``self.state()``,
        stored with each learner checkpoint); it wins over the league files, which were
        written every few seconds and may be ahead of that checkpoint after a kill -9."""
        if cfg.selection.by not in SELECTION_SCORES:
            raise ValueError(f"league.selection.by: {cfg.selection.by!r} is not one of {SELECTION_SCORES}")
        self.cfg = cfg
        self.dir = Path(run_dir) / "league"
        self.registry_path = self.dir / "registry.json"
        self.payoff_path = self.dir / "payoff.json"
        self.ratings = Ratings()
        if resume and state:
            self.registry = Registry.from_json(state["registry"])
            self.payoff = PayoffTable.from_json(state["payoff"])
            for m in self.registry.members.values():  # main exploiters cut off by the restart
                if m.role == "main_exploiter" and m.status == "training":
                    m.status, m.note = "discarded", "interrupted by a restart of the run"
        elif resume and self.registry_path.exists():  # a checkpoint from before league states were stored
            self.registry = Registry.load(self.registry_path)
            self.payoff = (
                PayoffTable.load(self.payoff_path) if self.payoff_path.exists() else PayoffTable(cfg.payoff_decay)
            )
            for m in self.registry.members.values():
                if m.role == "main_exploiter" and m.status == "training":
                    m.status, m.note = "discarded", "interrupted by a restart of the run"
        else:
            self.registry = Registry()
            self.registry.add("main", id="main")
            for role in cfg.fixed:
                if role not in SCRIPTED_ROLES:
                    raise ValueError(f"league.fixed: {role!r} is not a fixed baseline (one of {SCRIPTED_ROLES})")
                self.registry.add(role, id=role)
            if cfg.bc_checkpoint:
                self.registry.add("bc", id="bc", checkpoint=str(cfg.bc_checkpoint), note="behaviour cloning")
            self.payoff = PayoffTable(cfg.payoff_decay)
        self.latest_checkpoint: tuple[str, int] | None = None
        self.dirty = True
        self.save()

    # ------------------------------------------------------------------ inputs
    def on_results(self, results: list, agent: str = "main") -> None:
        """Games of training member ``agent``: (opponent id, agent's score) each."""
        if agent not in self.registry.members:
            return
        me = self.registry.get(agent)
        for member, score in results:
            if member == agent or member not in self.registry.members:
                continue
            self.payoff.update(agent, member, float(score))
            self.ratings.update(me, self.registry.get(member), float(score))
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
        return self.freeze("main", "past", path, ck_updates, note)

    def freeze(self, source: str, role: str, checkpoint: str, updates: int, note: str) -> str | None:
        """Add a frozen copy of training member ``source`` (its weights at ``checkpoint``) to
        the league under ``role``; it starts from the source's rating. Returns its id. All
        or nothing: the weights are written first, then the member added; a failure (the
        checkpoint unreadable, pruned, the disk full) is logged and returns None, the
        registry unchanged."""
        mid = self.registry.peek_id(role)
        dest = self.dir / f"{mid}.pt"
        try:
            freeze_weights(checkpoint, dest)
        except Exception as e:  # noqa: BLE001 - the run goes on without this member
            log.error(
                "freezing %s from %s (%s) failed, the league goes on without it: %s: %s",
                mid,
                source,
                checkpoint,
                type(e).__name__,
                e,
            )
            dest.unlink(missing_ok=True)
            return None
        m = self.registry.add(role, parent=source, created_update=updates)
        assert m.id == mid, (m.id, mid)
        m.checkpoint = str(dest)
        src = self.registry.get(source)
        m.mu, m.sigma = src.mu, src.sigma
        m.note = note
        log.info("frozen %s from %s at update %d: %s", m.id, source, updates, note)
        self.dirty = True
        self.save()
        return m.id

    # ------------------------------------------------------------------ outputs
    def message(self) -> dict:
        members: dict[str, dict] = {}
        pools: dict[str, list[str]] = {"past": [], "exploiters": [], "fixed": []}
        for m in sorted(self.registry.active(), key=lambda m: m.created_update):
            if m.id == "main":
                continue
            members[m.id] = {"role": m.role, "checkpoint": m.checkpoint, "team": m.team}
            pools[m.category].append(m.id)
        wr = {mid: self.payoff.win_rate("main", mid) for mid in members}
        # each league exploiter's own win rates, for its PFSP
        learners = {
            le.id: {mid: self.payoff.win_rate(le.id, mid) for mid in members}
            for le in self.registry.by_role("league_exploiter", status="training")
        }
        return {"members": members, "pools": pools, "win_rates": wr, "learners": learners}

    def summary(self) -> dict:
        return {
            "members": self.registry.count_by_role(),
            "training_win_rate": self.training_win_rates(),
            "exploiters_admitted": sum(
                1 for m in self.registry.members.values() if m.role == "main_exploiter" and m.status == "active"
            ),
            "exploiters_discarded": sum(1 for m in self.registry.members.values() if m.status == "discarded"),
        }

    def training_win_rates(self) -> dict:
        """The main agent against each member it played (the payoff table): its win rate
        as TensorBoard's league/win_rate/<id> has it (decayed by league.payoff_decay) and
        the number of games (undecayed)."""
        return {
            b: {"win_rate": round(self.payoff.win_rate("main", b), 3), "games": n}
            for (a, b), n in sorted(self.payoff.raw_games.items())
            if a == "main"
        }

    def log(self, tb, step: int) -> None:
        for m in self.registry.active():
            tb.add_scalar(f"league/rating/{m.id}", m.ordinal, step)
            if m.id != "main":
                tb.add_scalar(f"league/win_rate/{m.id}", self.payoff.win_rate("main", m.id), step)
        for role, n in self.registry.count_by_role().items():
            tb.add_scalar(f"league/members/{role}", n, step)

    def select(self, updates: int, seed: int = 0) -> tuple[list[str], list[str]]:
        """Population selection: retire the weakest frozen members beyond
        ``selection.cap`` and clone the strongest (weights + noise). Training members
        (the main agent, exploiters in training) and fixed baselines are never touched.
        Returns (retired ids, new clone ids)."""
        import torch

        from league.checkpoint import atomic_torch_save, load_checkpoint
        from league.population.nash import nash_mixture

        sc = self.cfg.selection
        pool = [m for m in self.registry.active() if m.frozen and m.id != "main"]
        if sc.by == "nash":
            ids = sorted({a for a, _ in self.payoff.raw_games} | {m.id for m in pool} | {"main"})
            w, g = self.payoff.matrix(ids)
            # pairs never played are predicted from the ratings, not read as even (as the
            # portfolio's): over a sparse table a member that won its few games could not lose
            filled = self.ratings.fill_unplayed(w, g, [self.registry.get(i) for i in ids])
            res = nash_mixture(filled)  # NashError propagates: no selection on a failed solve
            weight = dict(zip(ids, res.weights))
            # Nash weight first; members outside the support are ordered by their Nash average
            avg = dict(zip(ids, res.averages))
            scores = {m.id: float(weight[m.id]) + float(avg[m.id]) * 1e-3 for m in pool}
        else:
            scores = {m.id: m.ordinal for m in pool}
        roles = {m.id: m.role for m in pool}
        drop, clone = plan_selection(scores, roles, sc.cap, sc.clones)
        for mid in drop:
            m = self.registry.get(mid)
            m.status, m.note = "retired", f"selection at update {updates}: score {scores[mid]:.3f} among the weakest"
        clones = []
        gen = torch.Generator().manual_seed(seed + updates)
        for mid in clone:
            src = self.registry.get(mid)
            c = self.registry.add(
                src.role,
                parent=mid,
                created_update=updates,
                team=src.team,
                team_name=src.team_name,
                team_file=src.team_file,
                mu=src.mu,
                sigma=src.sigma,
                note=f"clone of {mid} (noise {sc.noise_std})",
            )
            assert src.checkpoint is not None  # (only members with networks are cloned: plan_selection)
            state = load_checkpoint(src.checkpoint)
            state["learner"]["net"] = mutate(state["learner"]["net"], sc.noise_std, gen)
            dest = self.dir / f"{c.id}.pt"
            atomic_torch_save(state, dest)
            c.checkpoint = str(dest)
            clones.append(c.id)
        if drop or clones:
            log.info("selection at update %d: retired %s, cloned %s -> %s", updates, drop, clone, clones)
            self.dirty = True
            self.save()
        return drop, clones

    def snapshots(self, status: str | None = "active") -> list:
        """The main agent's frozen snapshots (``past`` members frozen from ``main``, not
        clones), oldest first."""
        return sorted(
            (m for m in self.registry.by_role("past", status=status) if m.parent == "main"),
            key=lambda m: (m.created_update, m.id),
        )

    def eval_round(self, n_pairs: int, rng, previous: int = 0) -> list[dict]:
        """The ``n_pairs`` pairs of frozen members (baselines included, but not two
        scripted ones together) with the fewest games between them, as simulator
        commands: {a, b, checkpoint/team/role of each}. With ``previous`` > 0, the
        rolling tournament's pairs not played yet go first: each snapshot against the
        ``previous`` snapshots before it and every fixed baseline (elo.sequential_pairs)."""
        from league.population.elo import sequential_pairs
        from league.population.registry import FIXED_ROLES

        frozen = [m for m in self.registry.active() if m.frozen and m.id != "main"]
        pairs = [
            (a, b) for i, a in enumerate(frozen) for b in frozen[i + 1 :] if a.checkpoint or b.checkpoint
        ]  # two scripted baselines teach nothing new
        games = lambda ab: self.payoff.raw_games.get((ab[0].id, ab[1].id), 0)  # noqa: E731
        first: set = set()
        if previous > 0:
            fixed = [m.id for m in frozen if m.role in FIXED_ROLES]
            first = {frozenset(p) for p in sequential_pairs([m.id for m in self.snapshots()], fixed, previous)}
        rng.shuffle(pairs)
        pairs.sort(key=lambda ab: (not (games(ab) == 0 and frozenset((ab[0].id, ab[1].id)) in first), games(ab)))
        side = lambda m: {"id": m.id, "role": m.role, "checkpoint": m.checkpoint, "team": m.team}  # noqa: E731
        return [{"a": side(a), "b": side(b)} for a, b in pairs[:n_pairs]]

    def portfolio(self, size: int, strategy: str) -> tuple[list[tuple[str, str]], list[float]]:
        """The main learner's references: (member id, checkpoint) of up to ``size`` frozen
        members with networks, chosen by ``strategy`` (league/population/portfolio.py), and
        with ``nash`` their weights (else []): the Nash mixture of the meta-game among
        those members alone (a pair that never played: its ratings' predicted score,
        Ratings.fill_unplayed), renormalised over the chosen ones. Among them, not the whole
        league: the main agent usually beats its past selves and a scripted baseline
        may beat everyone, and either would take all the weight from the members that
        can be references (an empty portfolio); evaluation rounds fill these pairs.

        A member bound to one team (a main exploiter, or its clone: it always plays the
        team it trained with) is no reference: on the main agent's other teams its policy
        never learnt anything. The full league's hour of 12-07 regularised toward one (it
        had beaten its victim 40 of 40) for its last ~2,000 updates
        (experiments/issue27_league_1207)."""
        from league.population.nash import NashError, nash_mixture
        from league.population.portfolio import choose_portfolio, nash_portfolio

        cands = [
            m
            for m in self.registry.active()
            if m.frozen and m.checkpoint and m.id != "main" and m.role not in SCRIPTED_ROLES and m.team is None
        ]
        if not cands:
            return [], []
        ids = [m.id for m in cands]
        paths = {m.id: m.checkpoint for m in cands if m.checkpoint}
        rating = {m.id: m.ordinal for m in cands}
        if strategy == "nash":  # NashError propagates: the caller keeps the old portfolio
            w, g = self.payoff.matrix(ids)
            if not g.any():
                raise NashError(
                    f"no games yet among the {len(ids)} frozen members with networks "
                    "(evaluation rounds play them: league.eval_every_s, eval_pairs)"
                )
            # pairs never played are predicted from the ratings, not read as even
            res = nash_mixture(self.ratings.fill_unplayed(w, g, cands))
            weighted = nash_portfolio(ids, size, {m: float(x) for m, x in zip(ids, res.weights)}, rating)
            return [(mid, paths[mid]) for mid, _ in weighted], [x for _, x in weighted]
        opponents = sorted({a for a, _ in self.payoff.raw_games} | set(ids))
        rows = np.array([[self.payoff.win_rate(c, o) for o in opponents] for c in ids])
        chosen = choose_portfolio(
            ids, size, strategy, created={m.id: m.created_update for m in cands}, rating=rating, win_rates=rows
        )
        return [(mid, paths[mid]) for mid in chosen], []

    def payoff_markdown(self) -> str:
        """The payoff table among members that have played: row's win rate vs column, and
        games (undecayed), as a markdown table (TensorBoard text, reports)."""
        ids = sorted({a for a, _ in self.payoff.raw_games}, key=lambda i: (i != "main", i))
        if not ids:
            return "no games yet"
        w, g = self.payoff.matrix(ids)
        rows = ["| row vs column | " + " | ".join(ids) + " |", "|---" * (len(ids) + 1) + "|"]
        for i, a in enumerate(ids):
            cells = [f"{w[i, j]:.2f} ({g[i, j]})" if g[i, j] else "·" for j in range(len(ids))]
            rows.append(f"| {a} | " + " | ".join(cells) + " |")
        return "\n".join(rows)

    def log_payoff(self, tb, step: int) -> None:
        tb.add_text("league/payoff", self.payoff_markdown(), step)

    def state(self) -> dict:
        """Registry (ratings included) and payoff table, JSON-able: what a checkpoint stores."""
        return {"registry": self.registry.to_json(), "payoff": self.payoff.to_json()}

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
    atomic_torch_save(
        {
            "learner": {"net": state["learner"]["net"], "steps": state["learner"].get("steps")},
            "model_cfg": state["model_cfg"],
            "source": str(checkpoint),
        },
        dest,
    )
