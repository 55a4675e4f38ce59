"""A league run under injected faults, then the checks that nothing was lost.

    python -m tools.chaos [RUN_ARGS ...] --minutes M --every S --seed K [--faults KINDS] [--out DIR]
    python -m tools.chaos --minutes 120 --every 300 --seed 0        # the 2-hour soak

Runs ``python -m league.run`` (``reg_c`` with main and league exploiters on, plus
RUN_ARGS) for M minutes while, at times drawn from the seed (every S seconds on
average, uniform in [S/2, 3S/2]), it SIGKILLs or SIGSTOPs one component drawn from
``--faults``: a stream ``worker`` (a Node process of the simulator), the ``simulator``,
the main ``learner``, an ``exploiter`` learner, or the whole ``run`` (SIGKILL of the
main process, then ``resume=true``). A SIGSTOPped simulator or learner (``--stop-share``
of their faults) is left stopped: the coordinator must find it hung
(``run.heartbeat_timeout_s``; ``run.start_timeout_s`` if it had not reported yet) and
restart it. At M
minutes (with ``--cycle``: once each kind has been injected, up to 3M; no fault in the last S/2 seconds; a run restarted late is first let come up,
and a component left stopped is first found hung and replaced, its replacement
learning) the run is stopped as a user does (SIGINT). Afterwards it checks, and prints
as JSON (also ``OUT/chaos.json``):

- ``updates_never_below_checkpoint``: the learner's update count (progress lines) never
  fell below the newest checkpoint written before, and the final count is the final
  checkpoint's (0 when none was written: the coordinator's own rule);
- ``league_consistent``: every member of the registry names a file that loads (no
  pickle: league/checkpoint.py), every payoff entry names registry members;
- ``checkpoints_load``: every checkpoint left loads;
- ``no_orphans``: no process of the run is left;
- ``no_half_written_files``: no temporary file (``.*.tmp``) is left under the run;
- ``battles_accounted``: the run's final summary's battles add up: ``battles`` +
  ``battles_lost`` + ``battles_in_flight`` = ``battles_started`` (a battle on a killed
  worker or simulator, in flight at a kill of the run or at its stop, is lost, never
  vanished), no Showdown errors besides the faults' (``showdown_errors`` 0), and its exit
  status is 0.

and ``rss_mb``: resident memory per process, sampled every 10 s from ``--rss-from``
minutes into each process's own life (its start-up is not growth). Per component kind, the process of that kind watched longest (a restart is
a new process: its memory is not compared with its predecessor's): its pid, minutes
watched, first and last sample and growth in %, and the same from the medians of its
first and last five minutes of samples (``growth_median_pct``: RSS is a sawtooth between
garbage collections, a single sample lands anywhere on it); ``processes`` lists every process
sampled, each with its own ``growth_median_pct``, and ``max_growth_median_pct`` is the
largest of those watched at least 10 minutes (``processes_judged`` of them); ``series`` has every process's [minute of its life, MiB], one a minute from its
first sample (a curve: does it level off?). ``ok`` is true when every check held (memory is reported, not checked). Exit
status 0 when ok, 1 otherwise, 2 for bad input.

Kinds are drawn uniformly from ``--faults``; name a kind more than once to draw it more
often (``--faults worker,worker,learner,learner,simulator,exploiter,run``: the whole
run in 1 of 7).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

from tools import cli

FAULTS = ("worker", "simulator", "learner", "exploiter", "run")
PROGRESS = re.compile(r"updates\s+(\d+) \| battles")


def parse_args(argv=None):
    ap = cli.parser("python -m tools.chaos", __doc__)
    ap.add_argument("--minutes", type=float, required=True, help="the run's length, faults included")
    ap.add_argument("--every", type=float, required=True, help="mean seconds between faults")
    ap.add_argument("--faults", default=",".join(FAULTS), help="the kinds drawn from, comma-separated")
    ap.add_argument(
        "--stop-share",
        type=float,
        default=0.25,
        help="share of component faults that are SIGSTOP (hung) rather than SIGKILL",
    )
    ap.add_argument(
        "--cycle",
        action="store_true",
        help="take the kinds in turn (each one injected; one not up yet, as in a run still starting, is waited for up to --every seconds) rather than drawn; the run goes on past --minutes, a period at a time, until each kind has been injected (at most 3 x --minutes); times and pids still drawn",
    )
    ap.add_argument(
        "--rss-from", type=float, default=20.0, help="minute of a process's life of its first RSS sample compared"
    )
    ap.add_argument("--experiment", default="reg_c", help="the league.run experiment")
    ap.add_argument(
        "--no-exploiters", action="store_true", help="leave main and league exploiters as the experiment has them"
    )
    cli.add_seed(ap)
    cli.add_out(ap, "the run directory's parent and chaos.json (default: runs/chaos/<time>)")
    ap.add_argument("overrides", nargs="*", help="more league.run settings (KEY=VALUE)")
    args = ap.parse_intermixed_args(argv)  # overrides before or after the options
    kinds = [k for k in args.faults.split(",") if k]
    bad = [k for k in kinds if k not in FAULTS]
    if bad or not kinds:
        cli.bad_input(
            f"--faults: unknown kinds {bad} (choose from {', '.join(FAULTS)})" if bad else "--faults names no kind"
        )
    if args.minutes <= 0 or args.every <= 0 or not 0 <= args.stop_share <= 1:
        cli.bad_input("--minutes and --every must be > 0, --stop-share in [0, 1]")
    for o in args.overrides:
        if "=" not in o or o.split("=", 1)[0].lstrip("+") in ("hydra.run.dir", "resume", "experiment"):
            cli.bad_input(
                f"override {o!r}: KEY=VALUE, and not hydra.run.dir, resume or experiment (the tool sets them)"
            )
    args.kinds = kinds
    return args


# ---------------------------------------------------------------------------- the run's processes
def _pids(run_dir: Path) -> dict:
    try:
        return json.loads((run_dir / "processes.json").read_text())
    except (OSError, ValueError):
        return {}


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _workers(sim_pid: int) -> list[int]:
    import psutil

    try:
        return [c.pid for c in psutil.Process(sim_pid).children(recursive=True) if "node" in c.name()]
    except psutil.Error:
        return []


def components(run_dir: Path) -> dict[str, list[int]]:
    """Component kind -> its live pids (processes.json, the simulator's Node children)."""
    p = _pids(run_dir)
    out = {
        "main": [p["main"]] if "main" in p else [],
        "learner": [p["learner"]] if "learner" in p else [],
        "simulator": list(p.get("shards", [])),
        "exploiter": list(p.get("exploiters", {}).values()),
    }
    out["worker"] = [w for s in out["simulator"] for w in _workers(s)]
    return {k: [x for x in v if isinstance(x, int) and _alive(x)] for k, v in out.items()}


def marked_with(run_dir: Path) -> list[int]:
    """Pids of this user's processes that a run in ``run_dir`` started, whatever they
    became: the run marks its environment (wiring.RUN_DIR_ENV) before it starts its
    components, and every process they start inherits it (a spawned component shows the
    run directory neither in its command line nor as its working directory)."""
    from league.transport.wiring import RUN_DIR_ENV

    mark = f"{RUN_DIR_ENV}={os.path.realpath(run_dir)}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if mark in f.read().split(b"\0"):
                    found.append(int(entry))
        except OSError:  # gone, or not ours
            continue
    return found


def left_over(run_dir: Path, grace_s: float = 30.0) -> list[int]:
    """The run's processes still alive after up to ``grace_s`` (none: [] at once)."""
    from league.showdown.fleet import processes_under

    deadline = time.monotonic() + grace_s
    while True:
        named = subprocess.run(["pgrep", "-f", str(run_dir)], capture_output=True, text=True).stdout.split()
        listed = [x for v in components(run_dir).values() for x in v]
        found = {*map(int, named), *processes_under(run_dir), *listed, *marked_with(run_dir)}
        left = sorted(p for p in found if p != os.getpid() and _alive(p))
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.5)


def rss_mb(run_dir: Path) -> dict[int, tuple[str, float]]:
    """pid -> (component kind, resident MiB) of the run's live components."""
    import psutil

    out = {}
    for kind, pids in components(run_dir).items():
        for pid in pids:
            try:
                out[pid] = (kind, round(psutil.Process(pid).memory_info().rss / 2**20, 1))
            except psutil.Error:
                pass
    return out


def record_series(series: dict[int, dict], pid: int, kind: str, born: float, t: float, mb: float) -> None:
    """Keep one sample of ``pid`` per minute of its life (born at minute ``born``, sampled
    at minute ``t``): the first sample in each whole minute, as [minute of life, MiB]."""
    s = series.setdefault(pid, {"kind": kind, "born_min": born, "mb": []})
    age = t - born
    if not s["mb"] or int(age) > int(s["mb"][-1][0]):
        s["mb"].append([round(age, 2), mb])


RSS_WINDOW_MIN = 5.0  # minutes of samples whose median is a process's first or last memory
RSS_MIN_WATCHED = 10.0  # minutes: a process watched for less says nothing about growth


def _pct(a: float | None, b: float | None) -> float | None:
    return round(100 * (b - a) / a, 1) if a and b is not None else None


def window_medians(samples: list[list[float]], window: float = RSS_WINDOW_MIN) -> tuple[float | None, float | None]:
    """The median MiB of the first and of the last ``window`` minutes of ``samples``
    ([minute, MiB], in order). A garbage-collected process's RSS is a sawtooth (a Node
    worker's swings ~320-420 MiB with its heap between collections, with ~90 MiB live):
    one sample each end says where in the tooth it fell, the medians whether it grew."""
    if not samples:
        return None, None
    t0, t1 = samples[0][0], samples[-1][0]
    first = sorted(mb for t, mb in samples if t <= t0 + window)
    last = sorted(mb for t, mb in samples if t >= t1 - window)
    return first[len(first) // 2], last[len(last) // 2]


def rss_report(watched: dict[int, dict]) -> dict:
    """Per kind, the process watched longest (``watched``: pid -> kind, first/last minute
    and MiB, and its ``samples``), with its growth, from single samples and from the
    medians of its first and last five minutes; and every process."""
    by_kind: dict[str, dict] = {}
    for pid, w in sorted(watched.items()):
        span = w["last_min"] - w["first_min"]
        best = by_kind.get(w["kind"])
        if best is None or span > best["minutes"]:
            first_med, last_med = window_medians(w.get("samples", []))
            by_kind[w["kind"]] = {
                "pid": pid,
                "minutes": round(span, 1),
                "first": w["first_mb"],
                "last": w["last_mb"],
                "growth_pct": _pct(w["first_mb"], w["last_mb"]),
                "first_median": first_med,
                "last_median": last_med,
                "growth_median_pct": _pct(first_med, last_med),
            }
    processes = []
    for pid, w in sorted(watched.items()):
        first_med, last_med = window_medians(w.get("samples", []))
        entry = {"pid": pid, **{k: v for k, v in w.items() if k != "samples"}}
        processes.append(entry | {"growth_median_pct": _pct(first_med, last_med)})
    judged = [
        p["growth_median_pct"]
        for p in processes
        if p["growth_median_pct"] is not None and p["last_min"] - p["first_min"] >= RSS_MIN_WATCHED
    ]
    return {
        "longest": by_kind,
        "first": {k: v["first"] for k, v in by_kind.items()},
        "last": {k: v["last"] for k, v in by_kind.items()},
        "growth_pct": {k: v["growth_pct"] for k, v in by_kind.items()},
        "growth_median_pct": {k: v["growth_median_pct"] for k, v in by_kind.items()},
        # every process watched at least RSS_MIN_WATCHED minutes: the largest growth of any
        "max_growth_median_pct": max(judged, default=None),
        "processes_judged": len(judged),
        "processes": processes,
    }


# ---------------------------------------------------------------------------- the checks
def progress_updates(log: str) -> list[int]:
    return [int(m.group(1)) for m in PROGRESS.finditer(log)]


def check_league(run_dir: Path) -> tuple[bool, list[str]]:
    from league.checkpoint import CheckpointError, load_policy_net

    problems = []
    try:
        reg = json.loads((run_dir / "league" / "registry.json").read_text())
        pay = json.loads((run_dir / "league" / "payoff.json").read_text())
    except (OSError, ValueError) as e:
        return False, [f"league files: {e}"]
    ids = {m["id"] for m in reg["members"]}
    for m in reg["members"]:
        if m.get("checkpoint"):
            try:
                load_policy_net(m["checkpoint"])
            except CheckpointError as e:
                problems.append(f"member {m['id']}: {e}")
    for a, b, *_ in pay.get("raw_games", []):
        if a not in ids or b not in ids:
            problems.append(f"payoff names {a} vs {b}, not both in the registry")
    return not problems, problems


def check_checkpoints(run_dir: Path) -> tuple[bool, list[str]]:
    from league.checkpoint import CheckpointError, list_checkpoints, load_checkpoint

    problems = []
    for p in list_checkpoints(run_dir):
        try:
            load_checkpoint(p)
        except CheckpointError as e:
            problems.append(str(e))
    return not problems, problems


def half_written(run_dir: Path) -> list[str]:
    return sorted(str(p.relative_to(run_dir)) for p in run_dir.rglob(".*.tmp"))


# ---------------------------------------------------------------------------- the driver
class Chaos:
    def __init__(self, args, out: Path):
        self.args, self.out = args, out
        self.run_dir = out / "run"
        self.rng = random.Random(args.seed)
        self.faults: list[dict] = []
        self.turn = 0  # --cycle: the next kind's index
        self.waiting_since: float | None = None  # --cycle: since when the kind in turn is not up
        self.proc: subprocess.Popen  # the run started last (start)
        self.starts = 0
        self.ckpt_floor: list[tuple[int, int]] = []  # (progress line index, newest checkpoint step then)
        self.rss: dict[int, dict] = {}  # pid -> kind, first/last minute and MiB sampled (rss_report)
        self.rss_seen: dict[int, float] = {}  # pid -> the minute it was first seen
        self.rss_series: dict[int, dict] = {}  # pid -> kind, minute first seen, MiB at each minute of its life
        self.t0 = time.monotonic()
        self.lines_at_start = 0

    def run_args(self) -> list[str]:
        a = self.args
        # the tool ends the run (SIGINT at --minutes); the run's own limit is only a bound.
        # Restart budgets out of the way: every fault is answered by a restart
        base = [
            f"experiment={a.experiment}",
            f"hydra.run.dir={self.run_dir}",
            f"run.max_minutes={2 * a.minutes + 30}",
            "run.max_updates=0",
            "run.console=plain",
            "run.max_learner_restarts=1000",
            "run.max_sim_restarts=1000",
        ]
        if not a.no_exploiters:
            base += ["league.exploiters.enabled=true", "league.league_exploiters.enabled=true"]
        # after a kill of the whole run: resume it (a run killed before its first checkpoint
        # starts again; its directory holds nothing to lose)
        return base + list(a.overrides) + (["resume=true"] if self.starts and self.newest_checkpoint() else [])

    def start(self) -> None:
        log = open(self.out / f"run{self.starts}.log", "w")
        self.lines_at_start = len(progress_updates(self.run_log()))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "league.run", *self.run_args()],
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self.starts += 1

    def wait_up(self, limit_s: float = 180.0) -> None:
        """Until the run started last prints a progress line (it is up, its Ctrl-C handler
        in place), or it ends, or ``limit_s``."""
        deadline = time.monotonic() + limit_s
        while (
            time.monotonic() < deadline
            and self.proc.poll() is None
            and len(progress_updates(self.run_log())) <= self.lines_at_start
        ):
            time.sleep(0.5)

    def wait_recovered(self, limit_s: float) -> None:
        """Until every component left stopped (SIGSTOP) is gone (the coordinator found it
        hung and killed it, or it went with a killed run) and the run's learner has made an
        update past the newest checkpoint since (its replacement learns): a run is stopped
        recovered, as its checks assume; bounded by ``limit_s``, the run ends, or it is
        SIGINTed as it is."""
        deadline = time.monotonic() + limit_s
        stopped = [f["pid"] for f in self.faults if f.get("signal") == "SIGSTOP"]
        while time.monotonic() < deadline and self.proc.poll() is None and any(_alive(p) for p in stopped):
            time.sleep(0.5)
        if not stopped:
            return
        floor = self.newest_checkpoint()
        while time.monotonic() < deadline and self.proc.poll() is None:
            ups = progress_updates(self.run_log())
            if ups and ups[-1] > floor:
                return
            time.sleep(0.5)

    def _run_s(self, name: str) -> float:
        """``run.NAME`` as the run gets it (an override, else the default; no experiment
        shipped sets it)."""
        from league.config import RunConf

        for o in self.args.overrides:
            k, v = o.split("=", 1)
            if k.lstrip("+") == f"run.{name}":
                return float(v)
        return float(getattr(RunConf, name))

    def heartbeat_s(self) -> float:
        """``run.heartbeat_timeout_s``: how long a stopped component that had reported
        stays unfound."""
        return self._run_s("heartbeat_timeout_s")

    def hung_limit_s(self) -> float:
        """How long any stopped component may stay unfound: one stopped before its first
        report (still starting) is hung only after ``run.start_timeout_s``."""
        return max(self.heartbeat_s(), self._run_s("start_timeout_s"))

    def elapsed_min(self) -> float:
        return (time.monotonic() - self.t0) / 60

    def newest_checkpoint(self) -> int:
        from league.checkpoint import checkpoint_step, latest_checkpoint

        p = latest_checkpoint(self.run_dir)
        return (checkpoint_step(p) or 0) if p is not None else 0

    def inject(self) -> bool:
        """One fault; False when none was injected (nothing live to hit, or, with
        ``--cycle``, the kind in turn not up yet: it is waited for, up to one period)."""
        comps = components(self.run_dir)
        kinds = [k for k in self.args.kinds if k == "run" or comps.get(k)]
        if not kinds:
            return False
        if self.args.cycle:  # the kind in turn; one not up (a run still starting) is waited for
            in_turn = self.args.kinds[self.turn]
            if in_turn not in kinds:
                if self.waiting_since is None:
                    self.waiting_since = time.monotonic()
                if time.monotonic() - self.waiting_since < self.args.every:
                    return False
            self.waiting_since = None  # up, or waited a whole period for: the next that is
            order = self.args.kinds[self.turn :] + self.args.kinds[: self.turn]
            kind = next(k for k in order if k in kinds)
            self.turn = (self.args.kinds.index(kind) + 1) % len(self.args.kinds)
        else:
            kind = self.rng.choice(kinds)
        rec = {"t_min": round(self.elapsed_min(), 2), "kind": kind}
        if kind == "run":
            rec["signal"] = "SIGKILL"
            rec["pid"] = self.proc.pid
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
            rec["left_after_30s"] = left_over(self.run_dir, 30.0)
            self.faults.append(rec)
            self.mark_floor()
            self.start()
            return True
        pid = self.rng.choice(comps[kind])
        # hung (SIGSTOP): the components the coordinator watches by heartbeat
        hangable = kind in ("simulator", "learner")
        sig = signal.SIGSTOP if hangable and self.rng.random() < self.args.stop_share else signal.SIGKILL
        rec.update(signal=sig.name, pid=pid)
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            rec["missed"] = True
        self.faults.append(rec)
        return True

    def mark_floor(self) -> None:
        log = self.run_log()
        self.ckpt_floor.append((len(progress_updates(log)), self.newest_checkpoint()))

    def run_log(self) -> str:
        try:
            return (self.run_dir / "run.log").read_text(errors="replace")
        except OSError:
            return ""

    def sample_rss(self) -> None:
        """Each process's memory from ``--rss-from`` minutes into its own life (a restarted
        component's first minutes are its start-up, not growth) to its last sample."""
        t = round(self.elapsed_min(), 2)
        for pid, (kind, mb) in rss_mb(self.run_dir).items():
            born = self.rss_seen.setdefault(pid, t)
            record_series(self.rss_series, pid, kind, born, t, mb)
            if t - born < self.args.rss_from:
                continue
            w = self.rss.setdefault(pid, {"kind": kind, "first_min": t, "first_mb": mb, "samples": []})
            w.update(last_min=t, last_mb=mb)
            w["samples"].append([t, mb])

    def go(self) -> dict:
        self.out.mkdir(parents=True, exist_ok=True)
        self.start()
        end: float | None = self.t0 + self.args.minutes * 60
        next_fault = self.t0 + self.rng.uniform(0.5, 1.5) * self.args.every
        next_sample = 0.0
        try:
            while (end := self.end_after(time.monotonic(), end)) is not None:
                if self.proc.poll() is not None:  # the run ended by itself (a component past its budget)
                    break
                quiet = end - self.args.every / 2  # no fault in the last half period: the run settles
                now = time.monotonic()
                if now >= next_fault and now < quiet:
                    if self.inject():
                        next_fault = now + self.rng.uniform(0.5, 1.5) * self.args.every
                    else:
                        next_fault = now + 1.0
                if now >= next_sample:
                    self.sample_rss()
                    self.mark_floor()
                    next_sample = now + 10.0
                time.sleep(0.5)
            self.sample_rss()
            self.wait_up()  # a run restarted late is stopped once it is up, as a user would
            self.wait_recovered(self.hung_limit_s() + 180.0)  # a learner or simulator left hung, replaced
        except BaseException:  # Ctrl-C or SIGTERM (main): the run, in its own session, is not left behind
            self.stop_run()
            raise
        return self.report(self.stop_run())

    def not_injected(self) -> list[str]:
        """The kinds of ``--faults`` not injected yet."""
        done = {f["kind"] for f in self.faults}
        return [k for k in self.args.kinds if k not in done]

    def end_after(self, now: float, end: float | None) -> float | None:
        """When the fault loop ends, or None now: ``end`` (``--minutes``) while it lies ahead;
        past it, with ``--cycle`` and a kind not injected yet (on a busy box a run's
        workers can come up after the kinds' first turns), one more period, up to
        3 x ``--minutes`` in all."""
        if end is None:
            return None
        if now < end:
            return end
        limit = self.t0 + 3 * self.args.minutes * 60
        if self.args.cycle and self.not_injected() and now < limit:
            return min(now + self.args.every, limit)
        return None

    def stop_run(self, timeout_s: float = 300.0) -> int:
        """Stop the run started last as a user would (SIGINT: its checkpoint, its processes
        stopped); past ``timeout_s``, SIGKILL its whole session. Its exit code."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)  # start_new_session: its group is its pid
            return self.proc.wait()

    def report(self, code: int) -> dict:
        from league.checkpoint import checkpoint_step, latest_checkpoint

        log = self.run_log()
        ups = progress_updates(log)
        # a learner killed between checkpoints restarts from the newest: the count may fall
        # back to it, never below it
        below = [(i, ups[i], floor) for i0, floor in self.ckpt_floor for i in range(i0, len(ups)) if ups[i] < floor]
        summary = {}
        for line in reversed(log.splitlines()):
            if line.startswith("{") and '"run_dir"' in line:
                summary = json.loads(line)
                break
        final = latest_checkpoint(self.run_dir)
        # no checkpoint is 0 updates (the coordinator's settle: a learner that never wrote one)
        final_ok = bool(summary) and summary.get("updates") == (checkpoint_step(final) if final is not None else 0)
        league_ok, league_problems = check_league(self.run_dir) if (self.run_dir / "league").is_dir() else (True, [])
        ck_ok, ck_problems = check_checkpoints(self.run_dir)
        orphans = left_over(self.run_dir, 60.0)
        tmp = half_written(self.run_dir)
        checks = {
            "updates_never_below_checkpoint": not below and final_ok,
            "league_consistent": league_ok,
            "checkpoints_load": ck_ok,
            "no_orphans": not orphans,
            "no_half_written_files": not tmp,
            "battles_accounted": code == 0
            and summary.get("showdown_errors", 1) == 0
            and summary.get("battles", -1) >= 0
            and summary.get("battles", 0) + summary.get("battles_lost", 0) + summary.get("battles_in_flight", 0)
            == summary.get("battles_started", -1),
        }
        out = {
            "ok": all(checks.values()),
            "checks": checks,
            "faults": self.faults,
            "starts": self.starts,
            "minutes": round(self.elapsed_min(), 2),
            "exit_code": code,
            "rss_mb": {**rss_report(self.rss), "series": [{"pid": p, **v} for p, v in sorted(self.rss_series.items())]},
            "problems": {
                "updates_below_checkpoint": below[:10],
                "league": league_problems[:10],
                "checkpoints": ck_problems[:10],
                "orphans": orphans,
                "half_written": tmp,
                "final_checkpoint": str(final) if final else None,
            },
            "summary": summary,
            "run_dir": str(self.run_dir),
            "seed": self.args.seed,
        }
        (self.out / "chaos.json").write_text(json.dumps(out, indent=1) + "\n")
        return out


def main(argv=None) -> dict:
    args = parse_args(argv)
    cli.exit_on_sigterm()  # SIGTERM stops the run too (Chaos.stop_run)
    out = Path(args.out or f"runs/chaos/{time.strftime('%Y-%m-%d_%H-%M-%S')}")
    if (out / "run").exists():
        cli.bad_input(f"{out / 'run'} exists: name a new --out")
    result = Chaos(args, out).go()
    print(json.dumps(result))
    if not result["ok"]:
        sys.exit(1)
    return result


if __name__ == "__main__":
    main()
