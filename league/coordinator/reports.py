"""What each evaluation round reports beyond the payoff table: strength over training
and the league's diversity; to TensorBoard, ``RUN_DIR/reports/`` and the run summary.

Strength: Bradley-Terry Elo (league/population/elo.py) of the frozen members (past
snapshots, clones, admitted exploiters, the fixed baselines) from their games among
themselves only (the evaluation rounds: the rolling tournament of
``league.eval_previous``), so every rating is of a fixed policy; the payoff table's
decayed counts (frozen pairs do not change, the decay only lightens old games).
Anchored at ``random`` = 0 when it is rated (the scale stays put as snapshots join),
else mean 0. Each of the main agent's snapshots is plotted at its training step, and
the monotonic-improvement check runs over the snapshots in training order on the pairs
that played (``later_wins_share``, ``each_beats_previous``, ``monotonic``), with
Spearman's correlation of Elo with training step.

Diversity: the pairwise mean total-variation distance between the policies of the
active members with networks and the main agent (its latest checkpoint) on the fixed
probe states (league/population/diversity.py); one number per round, the mean over
pairs of distinct policies (``diversity/mean_tv``; identical copies count once), and
the closest such pair (``diversity/min_tv``: near 0, two networks play alike: collapse).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from league.atomic import atomic_write_text
from league.population.elo import elo_of, monotonic_check, rank_correlation

log = logging.getLogger("league.reports")


def strength_report(league) -> dict:
    """Elo of the frozen members from the games among them, each snapshot's at its
    training step, and the monotonic check (pure: reads the registry and payoff)."""
    from league.population.registry import FIXED_ROLES

    reg, pay = league.registry, league.payoff
    pool = [m for m in reg.members.values() if m.id != "main" and m.frozen and m.status != "discarded"]
    ids = [m.id for m in pool]
    anchor = "random" if "random" in ids else None
    elo = elo_of(ids, pay.wins, pay.games, anchor=anchor)
    if anchor not in elo:
        anchor = None
    snaps = [m for m in league.snapshots(status=None) if m.id in elo and m.status != "discarded"]
    order = [m.id for m in snaps]
    wr = {(a, b): pay.win_rate(a, b) for a in order for b in order if a != b and pay.games.get((a, b), 0) > 0}
    mono = monotonic_check(order, wr)
    steps = [m.created_update for m in snaps]
    return {
        "anchor": anchor,
        "elo": {k: round(v, 1) for k, v in sorted(elo.items())},
        "elo_by_step": [[m.id, m.created_update, round(elo[m.id], 1)] for m in snaps],
        "baselines": {m.id: round(elo[m.id], 1) for m in pool if m.role in FIXED_ROLES and m.id in elo},
        "elo_step_corr": None if (r := rank_correlation(steps, [elo[i] for i in order])) is None else round(r, 3),
        "pairs_checked": mono["pairs"],
        **{k: mono[k] for k in ("monotonic", "each_beats_previous", "later_wins_share", "violations")},
    }


class EvalReports:
    """Strength and diversity at each evaluation round, and at the end of the run."""

    def __init__(self, run_dir: Path, diversity: bool = True, probe=None):
        self.dir = Path(run_dir) / "reports"
        self.diversity_on = diversity
        self.probe = probe  # a DiversityProbe; made at the first round
        self.history: list = []  # [updates, mean_tv, min_tv] per round (carried over a resume by the file)
        try:
            self.history = json.loads((self.dir / "diversity.json").read_text())["history"]
        except (OSError, ValueError, KeyError, TypeError):
            pass
        self.last_diversity: dict | None = None

    def on_round(self, league, tb, updates: int) -> None:
        """Called by the coordinator when it starts an evaluation round: reports what the
        rounds before it played. A failure is logged and the run goes on."""
        try:
            self._strength(strength_report(league), tb, updates)
            if self.diversity_on:
                self._diversity(league, tb, updates)
        except Exception:  # a report never stops a run
            log.exception("evaluation report failed")

    def summary(self, league) -> dict:
        """The run summary's ``strength`` (recomputed from every game so far, figures
        written once more) and ``diversity`` (the last round's)."""
        out: dict = {}
        try:
            s = strength_report(league)
            self._write_strength(s)
            out["strength"] = s
        except Exception as e:
            log.exception("strength report failed")
            out["strength"] = {"error": f"{type(e).__name__}: {e}"}
        if self.diversity_on:
            out["diversity"] = self.last_diversity or {"mean_tv": None, "min_tv": None, "rounds": len(self.history)}
        return out

    # ------------------------------------------------------------------ strength
    def _write_strength(self, s: dict):
        from league.population.plots import elo_vs_step_figure, save_figure

        self.dir.mkdir(parents=True, exist_ok=True)
        fig = elo_vs_step_figure([tuple(p) for p in s["elo_by_step"]], s["baselines"], s["anchor"])
        save_figure(fig, self.dir / "strength.png")
        atomic_write_text(self.dir / "strength.json", json.dumps(s, indent=1) + "\n")
        return fig

    def _strength(self, s: dict, tb, updates: int) -> None:
        from league.population.plots import figure_image

        fig = self._write_strength(s)
        tb.add_image("strength/elo_vs_step", figure_image(fig), updates, dataformats="HWC")
        if s["elo_by_step"]:
            tb.add_scalar("strength/elo_newest", s["elo_by_step"][-1][2], updates)
        if s["elo_step_corr"] is not None:
            tb.add_scalar("strength/elo_step_corr", s["elo_step_corr"], updates)
        if s["pairs_checked"]:
            tb.add_scalar("strength/later_wins_share", s["later_wins_share"], updates)
        for mid, e in s["elo"].items():
            tb.add_scalar(f"strength/elo/{mid}", e, updates)

    # ------------------------------------------------------------------ diversity
    def _diversity(self, league, tb, updates: int) -> None:
        from league.population.diversity import DiversityProbe, summarize
        from league.population.plots import figure_image, matrix_figure, save_figure

        members = [m for m in league.registry.active() if m.checkpoint and m.frozen and m.id != "main"]
        members.sort(key=lambda m: (m.created_update, m.id))
        main = league.registry.get("main")
        pairs = ([("main", main.checkpoint)] if main.checkpoint else []) + [(m.id, m.checkpoint) for m in members]
        if len(pairs) < 2:
            return
        if self.probe is None:
            self.probe = DiversityProbe()
        ids, d, skipped = self.probe.measure(pairs)
        if skipped:
            log.warning("diversity: skipped %s (checkpoint not readable)", skipped)
        if len(ids) < 2:
            return
        s = summarize(d)
        if s["mean_tv"] is None:  # every member plays the same policy
            s.update(mean_tv=0.0, min_tv=0.0)
        self.history.append([updates, round(s["mean_tv"], 4), round(s["min_tv"], 4)])
        self.last_diversity = {
            "mean_tv": round(s["mean_tv"], 4),
            "min_tv": round(s["min_tv"], 4),
            "members": len(ids),
            "distinct": s["distinct"],
            "states": self.probe.n_states,
            "rounds": len(self.history),
            "updates": updates,
        }
        self.dir.mkdir(parents=True, exist_ok=True)
        fig = matrix_figure(
            d,
            ids,
            f"policy distance (mean TV over {self.probe.n_states} states), update {updates}",
            0.0,
            max(float(d.max()), 1e-3),
            fmt="{:.3f}",
        )  # the scale: this round's largest
        save_figure(fig, self.dir / "diversity.png")
        atomic_write_text(
            self.dir / "diversity.json",
            json.dumps(
                {
                    **self.last_diversity,
                    "ids": ids,
                    "tv": [[round(float(x), 4) for x in row] for row in d],
                    "history": self.history,
                },
                indent=1,
            )
            + "\n",
        )
        tb.add_image("diversity/heatmap", figure_image(fig), updates, dataformats="HWC")
        tb.add_scalar("diversity/mean_tv", s["mean_tv"], updates)
        tb.add_scalar("diversity/min_tv", s["min_tv"], updates)
        tb.add_scalar("diversity/members", len(ids), updates)
