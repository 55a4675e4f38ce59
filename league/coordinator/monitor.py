"""TensorBoard scalars, the console progress line, and the run's counters (battles,
decisions, Showdown errors, wall time: carried over a resume through the checkpoints)."""

from __future__ import annotations

import logging
import math
import time
from collections import deque
from pathlib import Path

from league.population.league import LeagueManager

log = logging.getLogger(__name__)


def budget_text(elapsed_s: float, updates: int, start_updates: int, max_minutes: float, max_updates: int) -> str:
    """The progress line's head: this session's elapsed time against its budget and the
    ETA: the sooner of the time left (``max_minutes``) and the updates left at this
    session's update rate (``max_updates``); "?" before the first update."""
    head = f"{elapsed_s / 60:5.1f}" + (f"/{max_minutes:g} min" if max_minutes else " min")
    left = []
    if max_minutes:
        left.append(max(0.0, 60 * max_minutes - elapsed_s))
    if max_updates:
        done = updates - start_updates
        if done > 0 and elapsed_s > 0:
            left.append(max(0, max_updates - updates) * elapsed_s / done)
        elif not max_minutes:
            return f"{head}, ETA ?"
    return f"{head}, ETA {min(left) / 60:.1f} min" if left else head


LEARNER_WINDOW = 100  # the run summary's learner figures: means over the main learner's last N reports
LEARNER_COUNTERS = ("updates", "weights_version", "reg_iterations")  # counts, not figures to average


def learner_summary(reports: list[dict]) -> dict:
    """The run summary's ``learner``: each numeric figure of the main learner's ``reports``
    (oldest first) as its last value and its mean over the reports that carry it (a sparse
    one, such as policy/kl_published every learner.diag_every updates, is in fewer), to 4
    significant digits."""
    values: dict[str, list[float]] = {}
    for m in reports:
        for k, v in m.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool) and k not in LEARNER_COUNTERS:
                values.setdefault(k, []).append(float(v))
    sig = lambda x: float(f"{x:.4g}")  # noqa: E731
    return {k: {"last": sig(v[-1]), "mean": sig(sum(v) / len(v))} for k, v in sorted(values.items())}


# A learner report past one of these has diverged: its later weights are noise. Healthy
# runs: the policy's logit spread 5-130 (the collapsed plateau policy ~47), the gradient
# norm before clipping ~1-5 under PPO and ~250 under NeuRD; the run with model.value_net
# that diverged went 130 -> 5,326 -> 3.4e6 and 4.6 -> 1.7e4 -> 1.5e13 within 40 updates
# (experiments/issue27_signal_screen). A logit spread that is not a number (NaN weights)
# has diverged too; a gradient norm that is not is a float16 overflow the scaler skips,
# and reports leave it out.
DIVERGED = {"policy/logit_std": 1e3, "grad_norm": 1e4}
# A gradient norm past its limit while the logit spread stays healthy can be one batch's
# spike, not a divergence: a best response from agent:regc's weights (no regularisation)
# met one norm of 31,504 at update 4,945, after norms of 2-4 and with a logit spread of 24
# (experiments/issue27_exploit_init), most likely a PPO ratio pi/mu of ~1e4 on a negative
# advantage; the update itself is clipped to learner.grad_clip_norm. So such a report is
# a divergence only when another report past a limit follows within SPIKE_WINDOW updates
# (the diverged runs went on past it at every update), dated from the first.
SPIKE_WINDOW = 20


def divergence(m: dict) -> tuple[str, float] | None:
    """The first figure of a learner report that says the learner has diverged, with its
    value; None for a healthy report (or one without the figures)."""
    for k, limit in DIVERGED.items():
        v = m.get(k)
        if isinstance(v, (int, float)) and (v > limit or (k == "policy/logit_std" and not math.isfinite(v))):
            return k, float(v)
    return None


SUMMED = (
    "battles",
    "main_battles",
    "eval_battles",
    "started",
    "lost",
    "in_flight",
    "decisions",
    "forced",
    "showdown_errors",
    "unavailable_choices",
    "trajectories",
    "dropped_long",
    "timed_out",
    "pending",
    "forwards",
    "requests",
    "infer_s",
    "server_restarts",
    "forward_failures",
    "search_targets",
    "search_changed",
    "search_close",
    "search_skipped",
)


def merge_stats(shards: dict[int, dict], eval_window: int) -> dict:
    """The simulator shards' stats as one report: counters summed, evaluation windows
    joined (the newest ``eval_window`` results per opponent), ``t`` and the policy
    version the latest. One shard's stats are returned as they are."""
    if len(shards) == 1:
        return next(iter(shards.values()))
    parts = [shards[k] for k in sorted(shards)]
    out = dict(parts[0])
    for key in SUMMED:
        out[key] = sum(p.get(key, 0) for p in parts)
    out["t"] = max(p.get("t", 0.0) for p in parts)
    out["policy_version"] = max(p.get("policy_version", 0) for p in parts)
    windows: dict[str, list] = {}
    games: dict[str, int] = {}
    cpu: dict[str, float] = {}
    for p in parts:
        for opp, results in p.get("eval_window", {}).items():
            windows.setdefault(opp, []).extend(results)
        for opp, n in p.get("eval_games", {}).items():
            games[opp] = games.get(opp, 0) + n
        for k, v in p.get("cpu", {}).items():
            cpu[k] = cpu.get(k, 0.0) + v
    windows = {opp: r[-eval_window:] for opp, r in windows.items()}
    out["eval_window"] = windows
    out["eval"] = {opp: sum(r) / len(r) for opp, r in windows.items() if r}
    out["eval_games"], out["cpu"] = games, cpu
    dropped: dict[str, int] = {}
    for p in parts:
        for why, n in p.get("dropped", {}).items():
            dropped[why] = dropped.get(why, 0) + n
    out["dropped"] = dropped
    out["results"] = []  # taken by the coordinator from each shard's own report
    return out


class Monitor:
    """TensorBoard scalars, the console progress line, and the run's counters."""

    def __init__(self, run_dir: Path, cfg, start_counters: dict, view=None):
        from torch.utils.tensorboard import SummaryWriter

        self.tb = SummaryWriter(str(run_dir / "tb"))
        self.run_dir = run_dir
        self.cfg = cfg
        self.view = view  # the live table (league/coordinator/view.py), or None: plain lines
        self.league: LeagueManager | None = None  # set by the caller: the live table's members and ratings
        self.base = {
            k: start_counters.get(k, 0)
            for k in ("battles", "decisions", "showdown_errors", "unavailable_choices", "wall_s")
        }
        # battle accounting (battles + lost + in_flight = started): a resumed run's battles in
        # flight at its checkpoint are lost; a checkpoint from before the accounting starts it
        self.base["started"] = start_counters.get("started", self.base["battles"])
        self.base["lost"] = start_counters.get("lost", 0) + start_counters.get("in_flight", 0)
        self.updates = int(start_counters.get("updates", 0))
        self.start_updates = self.updates  # where this session started (a resumed run's count)
        self.base_eval_window = start_counters.get("eval_window", {})
        self.sim: dict = {}  # the simulator shards' latest stats, merged (merge_stats)
        self.shards: dict[int, dict] = {}  # shard -> its latest stats
        self.learner: dict = {}
        self.learner_window: deque[dict] = deque(maxlen=LEARNER_WINDOW)  # the main learner's last reports
        self.t0 = time.monotonic()
        self.last_line = 0.0
        self.rate_start: dict[int, tuple[float, int]] = {}  # shard -> (its t, battles) once battles flow
        self.rate_done: dict[int, list] = {}  # shard -> [seconds, battles] of its incarnations that died
        self.shard_rate: dict[int, tuple] = {}  # shard -> (battles/s, decisions/s) between its last two reports
        self.diverged: dict | None = None  # the main learner's first report past DIVERGED
        # gradient-norm spikes alone (SPIKE_WINDOW), each {update, value}: the last ones, and how many
        self.spikes: deque[dict] = deque(maxlen=10)
        self.n_spikes = 0

    def counters(self) -> dict:
        s = self.sim
        return {
            "updates": self.updates,
            "battles": self.base["battles"] + s.get("battles", 0),
            "decisions": self.base["decisions"] + s.get("decisions", 0),
            "showdown_errors": self.base["showdown_errors"] + s.get("showdown_errors", 0),
            "unavailable_choices": self.base["unavailable_choices"] + s.get("unavailable_choices", 0),
            "started": self.base["started"] + s.get("started", 0),
            "lost": self.base["lost"] + s.get("lost", 0),
            "in_flight": s.get("in_flight", 0),
            "wall_s": self.base["wall_s"] + (time.monotonic() - self.t0),
            "eval_window": self.eval_window(),
        }

    def eval_window(self) -> dict:
        """The evaluation games' last results per opponent (the newest simulator report's;
        before any, the checkpoint's): a resumed or restarted simulator starts from them."""
        return self.sim.get("eval_window") or self.base_eval_window

    def on_update(self, m: dict) -> None:
        self.updates = int(m["updates"])
        self.learner = m
        self.learner_window.append(m)
        for k, v in m.items():
            if isinstance(v, (int, float)) and k != "updates":
                self.tb.add_scalar(f"learner/main/{k}", v, self.updates)
        bad = divergence(m)
        if bad is not None and self.diverged is None:
            spike = self.spikes[-1] if self.spikes else None
            if spike is not None and self.updates - spike["update"] > SPIKE_WINDOW:
                spike = None
            if bad[0] == "grad_norm" and spike is None:
                self.spikes.append({"update": self.updates, "value": bad[1]})
                self.n_spikes += 1
                log.warning(
                    "a gradient norm of %.4g at update %d (past %g, the logit spread healthy): one batch's "
                    "spike, its update clipped to learner.grad_clip_norm; another report past a limit "
                    "within %d updates would mean the learner diverged",
                    bad[1],
                    self.updates,
                    DIVERGED["grad_norm"],
                    SPIKE_WINDOW,
                )
                return
            if spike is not None:  # the spike was the first report of a divergence
                bad = ("grad_norm", spike["value"])
                self.spikes.pop()
                self.n_spikes -= 1
            first = spike["update"] if spike is not None else self.updates
            last = first - 1
            self.diverged = {"update": first, "figure": bad[0], "value": bad[1]}
            log.error(
                "the learner has diverged at update %d (%s %.4g, past %g): weights from here on are noise; "
                "the checkpoints before it (update <= %d) are the run's last good ones. Lower learner.lr, "
                "or bound the logits with learner.rnad.logit_l2 (docs/troubleshooting.md)",
                first,
                bad[0],
                bad[1],
                DIVERGED[bad[0]],
                last,
            )

    def on_sim(self, s: dict, shard: int = 0) -> None:
        """Stats from simulator shard ``shard`` (0 when there is one)."""
        prev = self.shards.get(shard, {})
        self.shards[shard] = s
        self.sim = merge_stats(self.shards, self.cfg.sim.eval_window)
        if shard not in self.rate_start and s["battles"] > 0:
            self.rate_start[shard] = (s["t"], s["battles"])
        step = self.updates
        dt = s["t"] - prev.get("t", 0.0)
        if dt > 0 and prev:
            self.shard_rate[shard] = ((s["battles"] - prev["battles"]) / dt, (s["decisions"] - prev["decisions"]) / dt)
            self.tb.add_scalar("sim/battles_per_s", sum(r[0] for r in self.shard_rate.values()), step)
            self.tb.add_scalar("sim/decisions_per_s", sum(r[1] for r in self.shard_rate.values()), step)
            dreq, dfw = s["requests"] - prev["requests"], s["forwards"] - prev["forwards"]
            if dfw > 0:
                self.tb.add_scalar("sim/batch_size_mean", dreq / dfw, step)
                self.tb.add_scalar("sim/infer_ms_per_forward", 1000 * (s["infer_s"] - prev["infer_s"]) / dfw, step)
        m = self.sim
        self.tb.add_scalar("sim/pending_trajectories", m["pending"], step)
        self.tb.add_scalar("sim/showdown_errors", m["showdown_errors"], step)
        self.tb.add_scalar("sim/server_restarts", m["server_restarts"], step)
        self.tb.add_scalar("sim/dropped_long", m["dropped_long"], step)
        self.tb.add_scalar("sim/forward_failures", m.get("forward_failures", 0), step)
        for why, n in m.get("dropped", {}).items():
            self.tb.add_scalar(f"sim/dropped/{why}", n, step)
        self.tb.add_scalar("sim/timed_out", m.get("timed_out", 0), step)
        if m.get("search_targets") or m.get("search_skipped"):  # sim.search_share
            for k in ("search_targets", "search_changed", "search_close", "search_skipped"):
                self.tb.add_scalar(f"sim/{k}", m.get(k, 0), step)
        c = self.counters()
        self.tb.add_scalar("sim/battles_lost", c["lost"], step)
        self.tb.add_scalar("sim/battles_in_flight", c["in_flight"], step)
        for opp, rate in m["eval"].items():
            self.tb.add_scalar(f"eval/win_rate/{opp}", rate, step)
        for cat, wgt in s.get("curriculum", {}).items():
            self.tb.add_scalar(f"league/curriculum/{cat}", wgt, step)
        for k, v in s.get("team_pairs", {}).items():  # league.sampler.team_pfsp (the reporting shard's)
            self.tb.add_scalar(f"league/team_pairs/{k}", v, step)

    def on_sim_restart(self, shard: int = 0) -> None:
        """Shard ``shard`` died: its counters join the base, the next one counts from 0; the
        battles it had in flight at its last report are lost (those it started after that
        report were counted nowhere)."""
        s = self.shards.pop(shard, {})
        for k in ("battles", "decisions", "showdown_errors", "unavailable_choices", "started", "lost", "in_flight"):
            self.base["lost" if k == "in_flight" else k] += s.get(k, 0)
        start = self.rate_start.pop(shard, None)
        if start is not None and s.get("t", 0.0) > start[0]:
            done = self.rate_done.setdefault(shard, [0.0, 0])
            done[0] += s["t"] - start[0]
            done[1] += s["battles"] - start[1]
        self.shard_rate.pop(shard, None)
        self.sim = merge_stats(self.shards, self.cfg.sim.eval_window) if self.shards else {}

    def battles_per_s(self) -> float:
        """Steady-state rate: per shard from its first stats with finished battles to its
        last (over its incarnations when it was restarted); the shards' rates summed."""
        total = 0.0
        for shard in set(self.rate_done) | set(self.rate_start):
            secs, n = self.rate_done.get(shard, (0.0, 0))
            start, s = self.rate_start.get(shard), self.shards.get(shard, {})
            if start is not None and s.get("t", 0.0) > start[0]:
                secs += s["t"] - start[0]
                n += s["battles"] - start[1]
            total += n / secs if secs > 0 else 0.0
        return total

    def summary(self, stop_reason, checkpoint, n_errors: int, league) -> dict:
        c = self.counters()
        return {
            "run_dir": str(self.run_dir),
            "stop_reason": stop_reason,
            "updates": c["updates"],
            "battles": c["battles"],
            # every battle started is finished (battles), lost (timed out, on a crashed
            # worker or simulator, in flight at a kill or at the stop) or still in flight
            "battles_started": c["started"],
            "battles_lost": c["lost"],
            "battles_in_flight": c["in_flight"],
            "decisions": c["decisions"],
            # this session's turns with one legal joint order, answered without the network
            # (sim.answer_forced; counted in decisions)
            "forced_decisions": self.sim.get("forced", 0),
            "showdown_errors": c["showdown_errors"],
            "unavailable_choices": c["unavailable_choices"],
            "checkpoint": checkpoint,
            "battles_per_s": round(self.battles_per_s(), 3),
            "eval_win_rate": self.sim.get("eval", {}),
            "eval_games": self.sim.get("eval_games", {}),
            "sim_cpu": self.sim.get("cpu", {}),
            # decisions per forward of the main policy (sim.infer_batch, sim.infer_wait_ms)
            "forward_failures": self.sim.get("forward_failures", 0),
            "dropped": self.sim.get("dropped", {}),  # trajectories not delivered, by reason
            # sim.search_share: move requests searched for a target (this session's), those
            # whose pick differed from the network's likeliest action, those not searchable
            "search_targets": {k: self.sim.get(f"search_{k}", 0) for k in ("targets", "changed", "close", "skipped")},
            "infer_batch_mean": round(self.sim["requests"] / self.sim["forwards"], 2)
            if self.sim.get("forwards")
            else None,
            **league.summary(),
            "learner": learner_summary(list(self.learner_window)),
            "learner_diverged": self.diverged,  # None, or the first report past DIVERGED
            # gradient-norm spikes that were not divergences: how many, the last ten
            "learner_grad_spikes": {"count": self.n_spikes, "last": list(self.spikes)},
            "wall_s": round(c["wall_s"], 1),
            "errors": n_errors,
        }

    def queue_depth(self, depth: int) -> None:
        self.tb.add_scalar("sim/queue_depth", depth, self.updates)

    def line(self, force: bool = False) -> None:
        now = time.monotonic()
        if not force and now - self.last_line < self.cfg.run.progress_every_s:
            return
        self.last_line = now
        c, s, m = self.counters(), self.sim, self.learner
        ev = " ".join(f"{k}={v:.2f}" for k, v in sorted(s.get("eval", {}).items()))
        run = self.cfg.run
        head = budget_text(now - self.t0, c["updates"], self.start_updates, run.max_minutes, run.max_updates)
        line = (
            f"[{head}] updates {c['updates']:6d} | battles {c['battles']:7d} | "
            f"errors {c['showdown_errors']} | lag {m.get('policy_lag', 0):.1f} | "
            f"pi {m.get('loss/policy', 0):+.3f} v {m.get('loss/value', 0):.3f} H {m.get('entropy', 0):.2f} | eval {ev}"
        )
        if self.view is None:
            print(line, flush=True)
        else:
            from league.coordinator.view import progress_table

            self.view.show(progress_table(head, c, s, m, self.league, self.battles_per_s()), line)
