"""The coordinator's decisions, driven by hand-made reports: no process, no socket."""

from __future__ import annotations

import json

import pytest

from league.config import Config
from league.coordinator.coordinator import HOLD_RESEND_S, TICK_S, Coordinator, Health, RestartLearner, RestartSim
from league.coordinator.monitor import Monitor
from league.population.league import LeagueManager
from league.transport.messages import (
    Checkpoint,
    Counters,
    Envelope,
    EvalRound,
    ExploiterEvaluate,
    ExploiterResult,
    ExploiterTrain,
    Final,
    Heartbeat,
    Hold,
    LeagueView,
    PairResults,
    PortfolioAck,
    SetPortfolio,
    Stats,
    Update,
    decode_command,
    decode_report,
    encode_command,
    encode_report,
)
from tests.unit.test_exploiters import SMALL, FakeProcess, fake_checkpoint, team

SIM, LEARNER = Envelope("sim", 42), Envelope("learner", 7)
OK = Health(sim_pid=42)


def _stats(battles: int = 0, results=()) -> Stats:
    return Stats(
        {
            "t": float(battles),
            "battles": battles,
            "decisions": 10 * battles,
            "showdown_errors": 0,
            "requests": 0,
            "forwards": 0,
            "infer_s": 0.0,
            "pending": 0,
            "server_restarts": 0,
            "dropped_long": 0,
            "eval": {},
            "results": list(results),
        }
    )


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self, dt: float = TICK_S + 0.1) -> float:
        self.t += dt
        return self.t


def make(tmp_path, portfolio=None, **league_cfg) -> tuple[Coordinator, list, Clock]:
    cfg = Config()
    cfg.model = SMALL
    cfg.run.max_updates = 10_000
    for k, v in (portfolio or {}).items():
        setattr(cfg.learner.portfolio, k, v)
    for k, v in league_cfg.items():
        obj = cfg.league
        *path, last = k.split("__")
        for p in path:
            obj = getattr(obj, p)
        setattr(obj, last, v)
    spawned = []

    def spawn(lane, member, league_exploiter):
        spawned.append((lane.index, member.id, league_exploiter))
        return FakeProcess()

    clock = Clock()
    mon = Monitor(tmp_path, cfg, {})
    league = LeagueManager(cfg.league, tmp_path, resume=False)
    coord = Coordinator(
        cfg, tmp_path, mon, league, [team("a", "A|packed")], spawn, t0=clock.t, print_fn=lambda *a, **k: None
    )
    return coord, spawned, clock


def resumed_coordinator(coord: Coordinator, league: LeagueManager, clock: Clock, **kw) -> Coordinator:
    """A second coordinator on ``coord``'s run directory, as a resumed run builds it."""
    return Coordinator(
        coord.cfg,
        coord.run_dir,
        coord.mon,
        league,
        [team("a", "A|packed")],
        lambda *a: FakeProcess(),
        t0=clock.t,
        print_fn=lambda *a, **k: None,
        **kw,
    )


def _checkpoint(tmp_path, updates: int) -> Checkpoint:
    return Checkpoint(fake_checkpoint(tmp_path / f"ckpt_{updates:09d}.pt"), updates)


def test_messages_round_trip_through_msgpack():
    for msg in (
        Update({"updates": 3, "loss/policy": -0.5}),
        Checkpoint("a.pt", 5, "final"),
        Final(None, 0),
        ExploiterResult("main_exploiter_1", 0, 6.5, 10),
        _stats(3, [["past_1", 1.0]]),
    ):
        env, back = decode_report(encode_report(msg, "learner", 9))
        assert back == msg and env == Envelope("learner", 9)
    for cmd in (
        Counters({"updates": 1}),
        LeagueView({"members": {}}),
        ExploiterTrain(1, "x", "v.pt", "T"),
        EvalRound([{"a": {"id": "random"}, "b": {"id": "past_1"}}], 4),
    ):
        assert decode_command(encode_command(cmd)) == cmd


def test_every_tick_sends_counters_and_the_league(tmp_path):
    coord, _, clock = make(tmp_path)
    out = coord.step(clock(), [(LEARNER, Update({"updates": 4, "loss/policy": 0.1}))], OK)
    assert coord.mon.updates == 4
    assert [type(a) for a in out] == [Counters, LeagueView] and out[0].counters["updates"] == 4
    assert coord.step(clock(0.1), [], OK) == []  # between ticks: nothing to say


def test_a_snapshot_of_main_joins_the_league_at_its_cadence(tmp_path):
    coord, _, clock = make(tmp_path, snapshot__every_updates=100, snapshot__min_updates_between=10)
    league = coord.league
    coord.step(clock(), [(LEARNER, _checkpoint(tmp_path, 50)), (LEARNER, Update({"updates": 50}))], OK)
    first = league.registry.by_role("past")
    assert len(first) == 1 and first[0].created_update == 50  # the first one at once
    coord.step(clock(), [(LEARNER, _checkpoint(tmp_path, 120)), (LEARNER, Update({"updates": 120}))], OK)
    assert len(league.registry.by_role("past")) == 1  # 70 updates later: not yet
    coord.step(clock(), [(LEARNER, _checkpoint(tmp_path, 150)), (LEARNER, Update({"updates": 150}))], OK)
    pasts = sorted(m.created_update for m in league.registry.by_role("past"))
    assert pasts == [50, 150]
    # results reported by the simulator land in the payoff table against that member
    sid = league.registry.by_role("past")[0].id
    coord.step(clock(), [(SIM, _stats(3, [[sid, 1.0], [sid, 0.0], [sid, 1.0]]))], OK)
    assert league.payoff.raw_games[("main", sid)] == 3


def test_a_main_exploiter_is_admitted_and_the_next_one_discarded(tmp_path):
    coord, spawned, clock = make(
        tmp_path,
        exploiters__enabled=True,
        exploiters__first_after=10,
        exploiters__every_updates=20,
        exploiters__eval_games=10,
    )
    reg = coord.league.registry
    out = coord.step(clock(), [(LEARNER, _checkpoint(tmp_path, 12)), (LEARNER, Update({"updates": 12}))], OK)
    assert len(spawned) == 1 and spawned[0][2] is False
    mid = spawned[0][1]
    train = [a for a in out if isinstance(a, ExploiterTrain)]
    assert len(train) == 1 and train[0].id == mid and reg.get(mid).status == "training"
    # its learner's final checkpoint -> evaluation against the victim -> 7/10 >= 0.6: admitted
    out = coord.step(clock(), [(Envelope(f"learner:{mid}", 8), Final(fake_checkpoint(tmp_path / "ex1.pt"), 300))], OK)
    assert any(isinstance(a, ExploiterEvaluate) and a.id == mid for a in out)
    coord.step(clock(), [(SIM, ExploiterResult(mid, 0, 7.0, 10))], OK)
    assert reg.get(mid).status == "active" and coord.summary()["exploiters_admitted"] == 1
    # the next one, due 20 updates later, beats its victim 3/10 only: discarded
    coord.step(clock(), [(LEARNER, _checkpoint(tmp_path, 40)), (LEARNER, Update({"updates": 40}))], OK)
    assert len(spawned) == 2
    nxt = spawned[1][1]
    coord.step(clock(), [(Envelope(f"learner:{nxt}", 9), Final(fake_checkpoint(tmp_path / "ex2.pt"), 300))], OK)
    coord.step(clock(), [(SIM, ExploiterResult(nxt, 0, 3.0, 10))], OK)
    assert reg.get(nxt).status != "active" and coord.summary()["exploiters_discarded"] == 1


def test_a_nash_portfolio_reaches_the_learner_with_its_weights_until_acknowledged(tmp_path):
    coord, _, clock = make(
        tmp_path, portfolio={"size": 3, "strategy": "nash", "update_every_s": 1.0}, fixed=[], payoff_decay=1.0
    )
    league = coord.league
    ck = fake_checkpoint(tmp_path / "main.pt")
    p1, p2, p3 = (league.freeze("main", "past", ck, u, "test") for u in (10, 20, 30))
    for x, y, wins in ((p1, p2, 6), (p2, p3, 8), (p3, p1, 7), ("main", p1, 9), ("main", p2, 9), ("main", p3, 9)):
        for i in range(10):
            league.payoff.update(x, y, 1.0 if i < wins else 0.0)
    out = [a for a in coord.step(clock(), [], OK) if isinstance(a, SetPortfolio)]
    assert len(out) == 1 and [m for m, _ in out[0].members] == [p1, p2, p3]
    assert out[0].weights == pytest.approx([1 / 2, 1 / 3, 1 / 6], abs=1e-6)  # the hand-solved mixture
    back = decode_command(encode_command(out[0]))  # through msgpack: pairs come back as lists
    assert [tuple(m) for m in back.members] == out[0].members and back.weights == out[0].weights
    assert [a for a in coord.step(clock(), [], OK) if isinstance(a, SetPortfolio)]  # resent: not acknowledged yet
    coord.step(clock(), [(LEARNER, PortfolioAck([p1, p2, p3]))], OK)
    assert not [a for a in coord.step(clock(), [], OK) if isinstance(a, SetPortfolio)]
    assert coord.summary()["portfolio"] == [p1, p2, p3]
    assert coord.summary()["portfolio_weights"] == pytest.approx([1 / 2, 1 / 3, 1 / 6], abs=1e-6)


def test_selection_and_evaluation_rounds(tmp_path):
    coord, _, clock = make(
        tmp_path,
        selection__enabled=True,
        selection__every_updates=100,
        selection__cap=2,
        selection__clones=0,
        selection__by="rating",
        snapshot__every_updates=10,
        snapshot__min_updates_between=10,
        eval_every_s=5.0,
        eval_pairs=2,
        eval_games=4,
    )
    reg = coord.league.registry
    for u in (10, 20, 30, 40):
        coord.step(clock(), [(LEARNER, _checkpoint(tmp_path, u)), (LEARNER, Update({"updates": u}))], OK)
    assert len(reg.by_role("past")) == 4
    coord.step(clock(), [(SIM, _stats(1))], OK)  # the simulator listens from now on
    out = coord.step(clock(5.1), [], OK)
    rounds = [a for a in out if isinstance(a, EvalRound)]
    assert len(rounds) == 1 and len(rounds[0].pairs) == 2 and rounds[0].games == 4
    coord.step(clock(), [(LEARNER, Update({"updates": 100}))], OK)  # selection due: cap 2 frozen non-fixed members
    active_past = [m for m in reg.by_role("past") if m.status == "active"]
    assert len(active_past) == 2


def test_rolling_tournament_strength_and_diversity_reports(tmp_path):
    import json

    coord, _, clock = make(
        tmp_path,
        snapshot__every_updates=10,
        snapshot__min_updates_between=10,
        eval_every_s=5.0,
        eval_pairs=3,
        eval_games=4,
        eval_previous=1,
    )
    for u in (10, 20, 30):
        coord.step(clock(), [(LEARNER, _checkpoint(tmp_path, u)), (LEARNER, Update({"updates": u}))], OK)
    s1, s2, s3 = [m.id for m in coord.league.snapshots()]
    coord.step(clock(), [(SIM, _stats(1))], OK)
    # the first round: pairs of the rolling tournament (each snapshot vs the previous one and the baselines)
    seq = {
        frozenset(p)
        for p in [
            (s1, "random"),
            (s1, "maxdamage"),
            (s2, s1),
            (s2, "random"),
            (s2, "maxdamage"),
            (s3, s2),
            (s3, "random"),
            (s3, "maxdamage"),
        ]
    }
    rnd = next(a for a in coord.step(clock(5.1), [], OK) if isinstance(a, EvalRound))
    assert len(rnd.pairs) == 3 and all(frozenset((p["a"]["id"], p["b"]["id"])) in seq for p in rnd.pairs)
    # their results come back (4 games a pair): each snapshot beats the one before and the baselines more
    scores = {
        (s2, s1): 3,
        (s3, s2): 3,
        (s1, "random"): 2,
        (s2, "random"): 3,
        (s3, "random"): 4,
        (s1, "maxdamage"): 1,
        (s2, "maxdamage"): 2,
        (s3, "maxdamage"): 3,
    }
    reports = [(SIM, PairResults(a, [(b, 1.0)] * w + [(b, 0.0)] * (4 - w))) for (a, b), w in scores.items()]
    out = coord.step(clock(5.1), reports, OK)
    nxt = next(a for a in out if isinstance(a, EvalRound))
    assert {nxt.pairs[0]["a"]["id"], nxt.pairs[0]["b"]["id"]} == {s1, s3}  # the one pair never played
    st = json.loads((tmp_path / "reports" / "strength.json").read_text())
    assert [p[:2] for p in st["elo_by_step"]] == [[s1, 10], [s2, 20], [s3, 30]] and st["anchor"] == "random"
    elos = [p[2] for p in st["elo_by_step"]]
    assert elos == sorted(elos) and st["baselines"]["random"] == 0.0 and st["elo_step_corr"] == 1.0
    assert st["monotonic"] and st["each_beats_previous"] and st["pairs_checked"] == 2
    # diversity: main (its latest checkpoint), and the three snapshots; main and s3 share weights
    dv = json.loads((tmp_path / "reports" / "diversity.json").read_text())
    assert dv["ids"] == ["main", s1, s2, s3] and dv["members"] == 4 and dv["history"][-1][0] == 30
    assert dv["tv"][0][3] == 0.0 and dv["distinct"] == 3 and 0 < dv["min_tv"] <= dv["mean_tv"] <= 1  # copies count once
    for png in ("strength.png", "diversity.png"):
        assert (tmp_path / "reports" / png).stat().st_size > 1000
    summary = coord.summary()
    assert summary["strength"]["monotonic"] and summary["diversity"]["mean_tv"] == dv["mean_tv"]


def test_learner_and_simulator_restart_decisions_then_stop(tmp_path):
    coord, _, clock = make(tmp_path)
    coord.cfg.run.max_learner_restarts = 1
    (tmp_path / "checkpoints").mkdir()
    coord.step(clock(), [(LEARNER, _checkpoint(tmp_path / "checkpoints", 30))], OK)
    out = coord.step(clock(), [], Health(sim_pid=42, learner_alive=False, learner_exitcode=-9))
    restarts = [a for a in out if isinstance(a, RestartLearner)]
    assert len(restarts) == 1 and restarts[0].resume.endswith("ckpt_000000030.pt") and not restarts[0].kill
    # alive but silent past the heartbeat timeout once it has reported: killed, then
    # restarted; here the second time is one too many
    coord.step(clock(), [(LEARNER, Heartbeat(30))], OK)
    t = clock(coord.cfg.run.heartbeat_timeout_s + 1)
    coord.step(t, [(SIM, _stats(5))], OK)
    assert coord.stop_reason == "component failed"
    # the simulator: dead -> restarted, and reports queued by the dead one are ignored
    coord2, _, clock2 = make(tmp_path / "b")
    out = coord2.step(clock2(), [(SIM, _stats(7))], Health(sim_pid=42, sim_alive=False, sim_exitcode=1))
    assert [a for a in out if isinstance(a, RestartSim)] and coord2.sim_restarts == 1
    coord2.step(clock2(), [(SIM, _stats(99))], Health(sim_pid=43))  # pid 42 is gone
    assert coord2.mon.counters()["battles"] == 7


def test_a_component_still_starting_gets_run_start_timeout_s_then_the_heartbeat_timeout(tmp_path):
    """Before its first report since it (re)started, a simulator or learner is building its
    policy (torch.compile: ~90 s cold on a slow 2-core box, over the 120-s heartbeat
    timeout with Showdown starting beside it) and is not hung until run.start_timeout_s;
    once heard from, the heartbeat timeout applies; restarted, it is starting again."""
    coord, _, clock = make(tmp_path)
    beat, start = coord.cfg.run.heartbeat_timeout_s, coord.cfg.run.start_timeout_s
    assert start > beat + 10

    def restarts(dt: float, reports=()) -> list:
        out = coord.step(clock(dt), list(reports), OK)
        return [a for a in out if isinstance(a, (RestartSim, RestartLearner))]

    # neither has said a word: silent past the heartbeat timeout, not past the start limit
    assert restarts(beat + 5) == [] and restarts(start - beat - 10) == []
    out = restarts(10)  # now past it: both are hung (the simulator's restart comes first, one kind a tick)
    assert [type(a) for a in out] == [RestartSim] and "since it started (run.start_timeout_s)" in out[0].why
    out = restarts(1)
    assert [type(a) for a in out] == [RestartLearner] and out[0].kill and "run.start_timeout_s" in out[0].why
    # both report: from now on the heartbeat timeout is the limit
    assert restarts(1, [(SIM, _stats(0)), (LEARNER, Heartbeat(0))]) == []
    assert restarts(beat - 1, [(LEARNER, Heartbeat(0))]) == []
    out = restarts(2, [(LEARNER, Heartbeat(0))])
    assert (
        [type(a) for a in out] == [RestartSim] and out[0].why.startswith("silent for") and "started" not in out[0].why
    )
    # the new simulator is starting again: the start limit, and no stall before its first report
    assert restarts(beat + 5, [(LEARNER, Heartbeat(0))]) == []
    assert coord.sim_restarts == 2 and coord.learner_restarts == 1


def test_updates_lost_with_a_killed_learner_are_not_counted(tmp_path):
    """Killed at update 31 after a checkpoint at 30: the count goes back to 30 (where the
    new learner resumes); its Final is the last word on the count and the checkpoint."""
    coord, _, clock = make(tmp_path)
    (tmp_path / "checkpoints").mkdir()
    coord.step(clock(), [(LEARNER, _checkpoint(tmp_path / "checkpoints", 30)), (LEARNER, Update({"updates": 31}))], OK)
    assert coord.mon.updates == 31
    out = coord.step(clock(), [], Health(sim_pid=42, learner_alive=False, learner_exitcode=-9))
    assert [a for a in out if isinstance(a, RestartLearner)] and coord.mon.updates == 30
    final = fake_checkpoint(tmp_path / "checkpoints" / "ckpt_000000030.pt")
    coord.take([(LEARNER, Update({"updates": 31})), (LEARNER, Final(final, 30))], 42, clock())
    summary = coord.summary()
    assert summary["updates"] == 30 and summary["checkpoint"] == final
    # a learner never checkpointed restarts from its initial weights: from 0
    coord2, _, clock2 = make(tmp_path / "b")
    coord2.step(clock2(), [(LEARNER, Update({"updates": 2}))], OK)
    coord2.step(clock2(), [], Health(sim_pid=42, learner_alive=False, learner_exitcode=-9))
    assert coord2.mon.updates == 0


def test_the_registry_s_main_names_the_checkpoint_training_goes_on_from_when_no_report_said_so(tmp_path):
    """CI caught a run whose registry named a pruned checkpoint: resumed from 78 with the
    league stored in it (naming 68), its learner stopped before it wrote another and killed
    at the stop (no Final). Resume, restart and the end each point main at the right file."""
    cks = tmp_path / "checkpoints"
    cks.mkdir()
    coord, _, clock = make(tmp_path)
    coord.step(clock(), [(LEARNER, _checkpoint(cks, 68))], OK)
    stored = coord.counters()["league"]
    assert stored["registry"]["members"][0]["checkpoint"].endswith("ckpt_000000068.pt")
    latest = fake_checkpoint(cks / "ckpt_000000078.pt")
    (cks / "ckpt_000000068.pt").unlink()  # pruned
    league = LeagueManager(coord.cfg.league, tmp_path, resume=True, state=stored)
    resumed = resumed_coordinator(coord, league, clock, resume_from=latest)
    assert league.registry.get("main").checkpoint == latest
    assert league.latest_checkpoint is None  # nothing frozen from it before the learner reports
    # a restarted learner resumes from the newest file, whatever it last reported
    newer = fake_checkpoint(cks / "ckpt_000000080.pt")
    resumed.step(clock(), [], Health(sim_pid=42, learner_alive=False, learner_exitcode=-9))
    assert league.registry.get("main").checkpoint == newer
    # the run ends with no Final (the learner was stopped, then killed): the newest file again
    last = fake_checkpoint(cks / "ckpt_000000082.pt")
    resumed.settle()
    assert league.registry.get("main").checkpoint == last and resumed.summary()["checkpoint"] == last
    league.save()
    saved = json.loads((tmp_path / "league" / "registry.json").read_text())
    assert {m["id"]: m["checkpoint"] for m in saved["members"]}["main"] == last


def test_a_diverged_learner_stops_the_run_at_its_last_good_checkpoint(tmp_path):
    """A run whose learner diverged stops at the next tick (its NaN weights would fail every
    battle while the run looked alive), restarting nothing; the checkpoints from the first bad update on, the
    final one among them, move to checkpoints/diverged/ (kept, not deleted), and the
    summary, the registry and the count name the last good one, where a resume goes on."""
    cks = tmp_path / "checkpoints"
    cks.mkdir()
    coord, _, clock = make(tmp_path)
    for n in (200, 300):
        coord.step(clock(), [(LEARNER, _checkpoint(cks, n)), (LEARNER, Update({"updates": n}))], OK)
    assert coord.stop_reason is None
    # the learner reports NaN logits and dies: the run stops, nothing restarts from a NaN file
    dead = Health(sim_pid=42, learner_alive=False, learner_exitcode=1)
    out = coord.step(clock(), [(LEARNER, Update({"updates": 350, "policy/logit_std": float("nan")}))], dead)
    assert coord.stop_reason == "diverged" and not [a for a in out if isinstance(a, (RestartLearner, RestartSim))]
    # reports that were on their way: a periodic checkpoint past it, then the final one
    coord.take(
        [(LEARNER, _checkpoint(cks, 400)), (LEARNER, Final(fake_checkpoint(cks / "ckpt_000000402.pt"), 402))],
        42,
        clock(),
    )
    coord.settle()
    good = str(cks / "ckpt_000000300.pt")
    assert sorted(p.name for p in cks.glob("ckpt_*.pt")) == ["ckpt_000000200.pt", "ckpt_000000300.pt"]
    assert sorted(p.name for p in (cks / "diverged").iterdir()) == ["ckpt_000000400.pt", "ckpt_000000402.pt"]
    out = coord.summary()
    assert out["checkpoint"] == good and out["updates"] == 300 and out["stop_reason"] == "diverged"
    assert out["learner_diverged"]["update"] == 350
    assert coord.league.registry.get("main").checkpoint == good
    coord.mon.tb.close()


def test_heartbeats_keep_a_quiet_learner_alive_and_max_updates_stops(tmp_path):
    coord, _, clock = make(tmp_path)
    timeout = coord.cfg.run.heartbeat_timeout_s
    for _ in range(3):
        t = clock(timeout * 0.6)
        assert not [
            a
            for a in coord.step(t, [(LEARNER, Heartbeat(5)), (SIM, _stats(1))], OK)
            if isinstance(a, (RestartLearner, RestartSim))
        ]
    coord.cfg.run.max_updates = 5
    coord.step(clock(), [(LEARNER, Update({"updates": 5}))], OK)
    assert coord.stop_reason == "max_updates"


def test_a_due_run_waiting_for_an_exploiter_holds_the_main_learner(tmp_path):
    """run.max_updates reached while an exploiter trains: the run waits for it (within
    finish_timeout_s), and the main learner is told to hold, so the main agent's budget is
    its budget (the full league's hour of 12-06 trained ~320 updates past its 60 minutes).
    The Hold is repeated every HOLD_RESEND_S (a restarted learner hears it), not every tick;
    the stop comes when the exploiter is done."""
    coord, spawned, clock = make(
        tmp_path, exploiters__enabled=True, exploiters__first_after=10, exploiters__every_updates=500
    )
    coord.step(clock(), [(LEARNER, _checkpoint(tmp_path, 12)), (LEARNER, Update({"updates": 12}))], OK)
    assert len(spawned) == 1
    mid = spawned[0][1]
    coord.cfg.run.max_updates = 20
    out = coord.step(clock(), [(LEARNER, Update({"updates": 20}))], OK)
    assert coord.stop_reason is None and [a for a in out if isinstance(a, Hold)] == [Hold("learner")]
    out = coord.step(clock(), [(LEARNER, Update({"updates": 21}))], OK)  # an update already in flight
    assert not [a for a in out if isinstance(a, Hold)] and coord.stop_reason is None
    out = coord.step(clock(HOLD_RESEND_S), [], OK)
    assert [a for a in out if isinstance(a, Hold)] == [Hold("learner")]
    coord.step(clock(), [(Envelope(f"learner:{mid}", 8), Final(fake_checkpoint(tmp_path / "ex1.pt"), 300))], OK)
    assert coord.stop_reason is None  # its evaluation is still to come
    coord.step(clock(), [(SIM, ExploiterResult(mid, 0, 7.0, 10))], OK)
    coord.step(clock(), [], OK)
    assert coord.stop_reason == "max_updates"
    assert coord.summary()["main_held_at_updates"] == 20


def test_a_run_due_with_no_exploiter_in_flight_stops_without_a_hold(tmp_path):
    coord, _, clock = make(tmp_path)
    coord.cfg.run.max_updates = 5
    out = coord.step(clock(), [(LEARNER, Update({"updates": 5}))], OK)
    assert coord.stop_reason == "max_updates" and not [a for a in out if isinstance(a, Hold)]
    assert "main_held_at_updates" not in coord.summary()


def test_checkpoint_counters_carry_the_league_and_schedule_and_resume_prefers_them(tmp_path):
    coord, spawned, clock = make(
        tmp_path, exploiters__enabled=True, exploiters__first_after=10, exploiters__every_updates=500
    )
    out = coord.step(clock(), [(LEARNER, _checkpoint(tmp_path, 12)), (LEARNER, Update({"updates": 12}))], OK)
    stored = next(a for a in out if isinstance(a, Counters)).counters
    assert stored["updates"] == 12 and stored["schedule"]["exploiters_next_spawn"] == 512
    ids = {m["id"] for m in stored["league"]["registry"]["members"]}
    assert len(spawned) == 1 and spawned[0][1] in ids
    # the league files move on (another snapshot) after that checkpoint ...
    coord.league.freeze_main("later")
    coord.league.save()
    # ... a resume from the checkpoint takes the checkpoint's league, not the files
    cfg = coord.cfg
    league = LeagueManager(cfg.league, tmp_path, resume=True, state=stored["league"])
    assert set(league.registry.members) == ids
    assert league.registry.get(spawned[0][1]).status == "discarded"  # its training was cut off
    resumed = resumed_coordinator(coord, league, clock, schedule=stored["schedule"])
    assert resumed.exploiters.next_spawn == 512 and resumed.exploiters.spawned == 1
    assert not resumed.exploiters.pending(100)  # no exploiter due at once after the resume


def test_evaluation_windows_carry_over_a_resume_and_a_restart(tmp_path):
    from league.sim.simulator import SimConfig, Simulator

    cfg = Config()
    stored = {"maxdamage": [1.0, 0.0, 0.0, 1.0], "random": [1.0]}
    mon = Monitor(tmp_path, cfg, {"updates": 8, "eval_window": stored})
    # before the new simulator reports, the checkpoint's windows are the run's (stored again as they were)
    assert mon.counters()["eval_window"] == stored and mon.eval_window() == stored
    # the simulator started with them goes on from them; a window longer than eval_window keeps its newest
    sim = Simulator(SimConfig(eval_window=3), None, None, [], lambda t: True, eval_history=mon.eval_window())
    assert sim.stats.eval_rates() == {"maxdamage": 1 / 3, "random": 1.0}
    assert list(sim.stats.eval["maxdamage"]) == [0.0, 0.0, 1.0]
    # once a simulator reports, its windows are the ones a checkpoint (or a restart) takes
    s = _stats(5)
    s.stats["eval_window"] = {"maxdamage": [0.0, 0.0, 1.0, 1.0]}
    mon.on_sim(s.stats)
    assert mon.counters()["eval_window"] == {"maxdamage": [0.0, 0.0, 1.0, 1.0]}


def test_progress_line_budget_and_eta_table():
    from league.coordinator.monitor import budget_text

    # (elapsed s, updates, updates at start, max_minutes, max_updates) -> head of the progress line
    table = [
        ((90, 0, 0, 60, 0), "  1.5/60 min, ETA 58.5 min"),  # minutes only: the time left
        ((600, 100, 0, 0, 1000), " 10.0 min, ETA 90.0 min"),  # updates only: 900 left at 10 per minute
        ((60, 0, 0, 0, 1000), "  1.0 min, ETA ?"),  # no update yet: no rate
        ((600, 100, 0, 20, 1000), " 10.0/20 min, ETA 10.0 min"),  # both: the sooner (time)
        ((600, 900, 0, 60, 1000), " 10.0/60 min, ETA 1.1 min"),  # both: the sooner (updates)
        ((120, 520, 500, 0, 600), "  2.0 min, ETA 8.0 min"),  # resumed at 500: this session's rate
        ((30, 5, 0, 0, 0), "  0.5 min"),  # no budget
    ]
    for args, want in table:
        assert budget_text(*args) == want, args


def test_live_view_shows_the_table_and_logs_every_line():
    import io

    from league.coordinator.view import make_view, progress_table

    assert make_view("auto", io.StringIO()) is None  # not a terminal: plain lines
    term, log = io.StringIO(), io.StringIO()
    view = make_view("rich", term, log).start()
    try:
        print("[coordinator] something happened")
        c = {"updates": 3, "battles": 10, "decisions": 100, "showdown_errors": 0}
        view.show(
            progress_table(
                "1.0/60 min, ETA 59.0 min",
                c,
                {"eval": {"random": 0.9}, "eval_games": {"random": 20}},
                {"entropy": 3.1},
                battles_per_s=2.5,
            ),
            "THE PLAIN LINE",
        )
    finally:
        view.stop()
    out = term.getvalue()
    assert "[coordinator] something happened" in out and "vs random 0.90 (20 games)" in out
    assert "battles 10 (2.5/s)" in out and "THE PLAIN LINE" not in out  # the table, not the line
    assert "[coordinator] something happened" in log.getvalue() and "THE PLAIN LINE" in log.getvalue()


def test_simulator_shards_are_summed_watched_and_restarted_one_by_one(tmp_path):
    from league.coordinator.coordinator import SimHealth
    from league.transport.messages import shard_name, shard_of

    assert [shard_name(k) for k in range(3)] == ["sim", "sim:1", "sim:2"]
    assert [shard_of(n) for n in ("sim", "sim:2", "learner", "learner:x")] == [0, 2, None, None]
    coord, _, clock = make(tmp_path)
    coord.cfg.sim.shards = 2
    coord = Coordinator(
        coord.cfg,
        tmp_path,
        Monitor(tmp_path, coord.cfg, {}),
        coord.league,
        [team("a", "A|packed")],
        lambda *a: FakeProcess(),
        t0=clock.t,
        print_fn=lambda *a, **k: None,
    )
    two = Health(shards=[SimHealth(pid=42), SimHealth(pid=50)])
    s0, s1 = _stats(10), _stats(4)
    s0.stats.update(eval_window={"random": [1.0, 1.0]}, eval_games={"random": 2}, policy_version=7)
    s1.stats.update(eval_window={"random": [0.0]}, eval_games={"random": 1}, policy_version=9)
    coord.step(clock(), [(SIM, s0), (Envelope("sim:1", 50), s1)], two)
    sim = coord.mon.sim
    assert sim["battles"] == 14 and sim["decisions"] == 140 and coord.mon.counters()["battles"] == 14
    assert sim["eval_window"] == {"random": [1.0, 1.0, 0.0]} and sim["eval"] == {"random": 2 / 3}
    assert sim["eval_games"] == {"random": 3} and sim["policy_version"] == 9
    # shard 1 dies: only it restarts; its battles stay counted, the new one's pid is the one heard
    out = coord.step(clock(), [], Health(shards=[SimHealth(pid=42), SimHealth(False, -9, 50)]))
    assert [(a.shard, "exited with code -9" in a.why) for a in out if isinstance(a, RestartSim)] == [(1, True)]
    assert coord.st.sim_up  # shard 0 (the lanes' and evaluation rounds') is untouched
    after = Health(shards=[SimHealth(pid=42), SimHealth(pid=51)])
    coord.step(clock(), [(Envelope("sim:1", 50), _stats(99)), (Envelope("sim:1", 51), _stats(3))], after)
    assert coord.mon.counters()["battles"] == 10 + 4 + 3 and coord.sim_restarts == 1
    # a silent shard is hung: restarted too
    t = clock(coord.cfg.run.heartbeat_timeout_s - 1)
    coord.step(t, [(SIM, _stats(11)), (Envelope("sim:1", 51), _stats(4))], after)
    out = coord.step(clock(5.0), [(SIM, _stats(12))], after)
    assert not [a for a in out if isinstance(a, RestartSim)] and coord.sim_restarts == 1
    out = coord.step(clock(coord.cfg.run.heartbeat_timeout_s), [(SIM, _stats(13))], after)
    assert [a.shard for a in out if isinstance(a, RestartSim)] == [1] and coord.sim_restarts == 2


def test_the_summary_carries_the_learner_figures_and_the_training_win_rates(tmp_path):
    coord, _, clock = make(tmp_path)
    reports = [
        {
            "updates": u,
            "weights_version": u,
            "grad_norm": g,
            "grad_clipped": float(g > 10),
            "value/explained_variance": ev,
            "entropy/turn": 2.0,
        }
        for u, g, ev in ((1, 4.0, 0.1), (2, 12.0, 0.2), (3, 6.0, 0.6))
    ]
    reports[1]["policy/kl_published"] = 0.02  # a sparse figure: in one report of the three
    coord.step(clock(), [(LEARNER, Update(m)) for m in reports], OK)
    coord.step(clock(), [(SIM, _stats(4, [["random", 1.0], ["random", 1.0], ["random", 0.0], ["maxdamage", 0.0]]))], OK)
    summary = coord.summary()
    learner = summary["learner"]
    assert learner["grad_norm"] == {"last": 6.0, "mean": pytest.approx(22 / 3, abs=1e-3)}
    assert learner["grad_clipped"] == {"last": 0.0, "mean": pytest.approx(1 / 3, abs=1e-3)}
    assert learner["value/explained_variance"] == {"last": 0.6, "mean": pytest.approx(0.3, abs=1e-4)}
    assert learner["policy/kl_published"] == {"last": 0.02, "mean": 0.02}
    assert "updates" not in learner and "weights_version" not in learner
    # decay 0.995 per game of the pair: wins (1 * .995 + 1) * .995 + 0 over games (1 * .995 + 1) * .995 + 1
    wins, games = (0.995 + 1) * 0.995, (0.995 + 1) * 0.995 + 1
    assert summary["training_win_rate"] == {
        "maxdamage": {"win_rate": 0.0, "games": 1},
        "random": {"win_rate": round(wins / games, 3), "games": 3},
    }
    assert json.loads(json.dumps(summary))["learner"] == learner  # summary.json holds it as it is


def test_a_simulator_that_reports_but_finishes_no_battle_is_restarted(tmp_path):
    """The progress watchdog: Stats keep coming (not silent) with the same battle count for
    run.stall_s: restarted like a silent one; a count that moves, however slowly, is progress."""
    coord, _, clock = make(tmp_path)
    stall = coord.cfg.run.stall_s

    def restarts(battles: int, dt: float) -> list:
        out = coord.step(clock(dt), [(SIM, _stats(battles)), (LEARNER, Heartbeat(0))], OK)
        return [a for a in out if isinstance(a, RestartSim)]

    for n in range(1, 5):  # one battle every 0.9 stall_s: never stalled
        assert restarts(n, stall * 0.9) == []
    assert restarts(4, stall * 0.5) == [] and restarts(4, stall * 0.5 - 1) == []  # idle just under stall_s
    out = restarts(4, 2)  # now past it
    assert len(out) == 1 and "no battle finished" in out[0].why and coord.sim_restarts == 1
    assert restarts(0, stall * 0.9) == []  # the new simulator's clock starts at its restart
    coord.cfg.run.stall_s = 0  # off
    assert restarts(0, stall * 0.9) == [] and restarts(0, stall * 0.9) == []


def test_a_forged_learner_report_is_dropped_and_counted_not_obeyed(tmp_path):
    """A Final signed "learner" from another process would set the update count (and stop
    the run at run.max_updates) and name a checkpoint: dropped, counted in the summary."""
    coord, _, clock = make(tmp_path)
    coord.cfg.run.max_updates = 100
    h = Health(sim_pid=42, learner_pid=7)
    forged = Envelope("learner", 6666)
    coord.step(clock(), [(forged, Final("/tmp/evil.pt", 100)), (forged, Update({"updates": 100}))], h)
    assert coord.stop_reason is None and coord.mon.updates == 0 and coord.st.checkpoint is None
    assert coord.summary()["foreign_reports"] == 2
    coord.step(clock(), [(LEARNER, Update({"updates": 100}))], h)  # the learner's own (pid 7) is obeyed
    assert coord.stop_reason == "max_updates"


def test_bytes_that_are_no_message_are_counted_and_dropped_the_channel_goes_on():
    import msgpack
    import zmq

    from league.transport.messages import BadMessage, decode_command
    from league.transport.wiring import ComponentSockets, TcpWiring

    for junk in (
        b"\xc1garbage",
        msgpack.packb([1, 2]),
        msgpack.packb({"kind": "nope"}),
        msgpack.packb({"kind": "final", "from": "learner", "pid": 1, "bogus_only": 1, "updates": "x"})[:5],
        msgpack.packb({"kind": "update", "from": 3, "pid": 1, "metrics": {}}),
    ):
        with pytest.raises(BadMessage):
            decode_report(junk)
    with pytest.raises(BadMessage):
        decode_command(msgpack.packb({"cmd": "stop", "nonsense": 1, "why": None})[:3])
    w = TcpWiring("127.0.0.1")
    stranger = zmq.Context().socket(zmq.PUSH)
    stranger.connect(w.addr["reports"])
    try:
        with ComponentSockets(w.addr, "learner") as io:
            stranger.send(b"\xc1garbage")
            stranger.send(msgpack.packb({"kind": "nope"}))
            io.send(Heartbeat(3))
            got: list = []
            for _ in range(100):  # until all three arrived (each receive waits up to 100 ms)
                got += w.receive(100)
                if got and w.bad_messages == 2:
                    break
        assert [type(m) for _, m in got] == [Heartbeat] and w.bad_messages == 2
    finally:
        stranger.close(linger=0)
        w.close()


def test_control_channels_on_a_network_address_let_only_the_runs_own_peers_in():
    """CURVE with keys made per run: a component with addr["curve"] gets through; a
    stranger without the keys connects, sends, and nothing of it arrives."""
    import socket

    import zmq

    from league.transport.wiring import ComponentSockets, TcpWiring

    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))  # no packet: picks this machine's non-loopback address
        host = s.getsockname()[0]
    except OSError:
        pytest.skip("no network address on this machine")
    finally:
        s.close()
    if host.startswith("127."):
        pytest.skip("no network address on this machine")
    w = TcpWiring(host)
    assert "curve" in w.addr and TcpWiring("127.0.0.1").addr.keys() == {"reports", "commands"}
    stranger = zmq.Context().socket(zmq.PUSH)
    stranger.connect(w.addr["reports"])
    try:
        with ComponentSockets(w.addr, "learner") as io:
            stranger.send(encode_report(Final("/tmp/evil.pt", 10**6), "learner", 7), zmq.NOBLOCK)
            io.send(Heartbeat(3))
            got: list = []
            for _ in range(100):
                got += w.receive(100)
                if got:
                    break
            got += w.receive(500)  # and nothing else comes
        assert [type(m) for _, m in got] == [Heartbeat]
    finally:
        stranger.close(linger=0)
        w.close()


def test_dropped_trajectories_are_summed_over_shards_by_reason_into_the_summary(tmp_path):
    from league.coordinator.monitor import merge_stats

    a = {**_stats(3).stats, "dropped": {"too_long": 1, "at_stop": 4}, "forward_failures": 2}
    b = {**_stats(5).stats, "dropped": {"too_long": 2, "slot_wait": 1}, "forward_failures": 0}
    merged = merge_stats({0: a, 1: b}, eval_window=10)
    assert merged["dropped"] == {"too_long": 3, "at_stop": 4, "slot_wait": 1} and merged["forward_failures"] == 2
    coord, _, clock = make(tmp_path)
    coord.step(clock(), [(SIM, Stats(a))], OK)
    s = coord.summary()
    assert s["dropped"] == {"too_long": 1, "at_stop": 4} and s["forward_failures"] == 2


def test_battles_add_up_over_shards_a_killed_shard_and_a_resume(tmp_path):
    """battles + lost + in_flight = started, by hand: shard 0 reports 10 started, 7 finished,
    1 lost (a timed-out battle), 2 in flight; shard 1 reports 5 / 4 / 0 / 1; shard 1 dies
    (its 1 in flight is lost), its next incarnation reports 3 / 1 / 0 / 2."""
    cfg = Config()
    mon = Monitor(tmp_path, cfg, {})

    def report(shard, started, battles, lost, in_flight, errors=0, unavailable=0):
        mon.on_sim(
            {
                **_stats(battles).stats,
                "started": started,
                "lost": lost,
                "in_flight": in_flight,
                "showdown_errors": errors,
                "unavailable_choices": unavailable,
            },
            shard,
        )

    report(0, 10, 7, 1, 2, errors=1, unavailable=2)
    report(1, 5, 4, 0, 1, unavailable=1)
    c = mon.counters()
    assert (c["started"], c["battles"], c["lost"], c["in_flight"]) == (15, 11, 1, 3)
    assert (c["showdown_errors"], c["unavailable_choices"]) == (1, 3)
    mon.on_sim_restart(1)
    report(1, 3, 1, 0, 2, unavailable=4)
    c = mon.counters()
    assert (c["started"], c["battles"], c["lost"], c["in_flight"]) == (18, 12, 2, 4)
    assert c["battles"] + c["lost"] + c["in_flight"] == c["started"]
    assert (c["showdown_errors"], c["unavailable_choices"]) == (1, 7)  # the dead shard's count kept
    # a resume from these counters: the 4 in flight at the checkpoint are lost, the next
    # simulator counts from 0
    resumed = Monitor(tmp_path / "r", cfg, c)
    report_r = {**_stats(2).stats, "started": 3, "lost": 0, "in_flight": 1, "unavailable_choices": 1}
    resumed.on_sim(report_r)
    r = resumed.counters()
    assert (r["started"], r["battles"], r["lost"], r["in_flight"]) == (21, 14, 6, 1)
    assert r["unavailable_choices"] == 8
    # a checkpoint from before the accounting: what it finished is what it started
    old = Monitor(tmp_path / "o", cfg, {"battles": 40})
    assert (old.counters()["started"], old.counters()["lost"]) == (40, 0)


def test_a_diverged_learner_is_reported_once_with_its_first_bad_update(tmp_path, caplog):
    """A logit spread past 1,000, a gradient norm past 10,000 or a logit spread that is
    not a number: the first such report is logged as an error naming the last good
    checkpoint's update and kept in the run summary; healthy figures (NeuRD's ~250
    gradient norm, the plateau's ~47 logit spread) and a float16 overflow (no figure)
    are not."""
    from league.coordinator.monitor import divergence

    assert divergence({"grad_norm": 250.0, "policy/logit_std": 47.0}) is None
    assert divergence({"grad_norm": 9_999.0, "policy/logit_std": 999.0}) is None
    assert divergence({"amp/overflow": 1.0}) is None
    assert divergence({"grad_norm": 1.7e4}) == ("grad_norm", 1.7e4)
    assert divergence({"policy/logit_std": 5326.0, "grad_norm": 2.0}) == ("policy/logit_std", 5326.0)
    assert divergence({"policy/logit_std": float("nan")})[0] == "policy/logit_std"
    mon = Monitor(tmp_path, Config(), {})
    mon.on_update({"updates": 1950, "grad_norm": 4.6, "policy/logit_std": 130.0})
    assert mon.diverged is None and not [r for r in caplog.records if r.levelname == "ERROR"]
    with caplog.at_level("ERROR"):
        mon.on_update({"updates": 1951, "grad_norm": 1.7e4, "policy/logit_std": 5326.0})
        mon.on_update({"updates": 1952, "grad_norm": 1.5e13, "policy/logit_std": 3.4e6})
    assert mon.diverged == {"update": 1951, "figure": "policy/logit_std", "value": 5326.0}
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and "diverged at update 1951" in errors[0] and "update <= 1950" in errors[0]
    mon.tb.close()


def test_a_lone_gradient_spike_is_not_a_divergence_but_a_second_within_the_window_is(tmp_path, caplog):
    """A gradient norm past 10,000 with a healthy logit spread (one batch's spike, its
    update clipped) is logged as a warning and counted, and the run goes on; another
    report past a limit within SPIKE_WINDOW updates makes it a divergence dated from the
    spike (its checkpoints from there on are set aside), past the window a new spike."""
    from league.coordinator.monitor import SPIKE_WINDOW

    mon = Monitor(tmp_path, Config(), {})
    with caplog.at_level("WARNING"):
        mon.on_update({"updates": 4944, "grad_norm": 3.9, "policy/logit_std": 33.5})
        mon.on_update({"updates": 4945, "grad_norm": 31503.9, "policy/logit_std": 23.7})
        for u in range(4946, 4946 + SPIKE_WINDOW + 1):
            mon.on_update({"updates": u, "grad_norm": 2.5, "policy/logit_std": 30.0})
    assert mon.diverged is None
    assert [r.levelname for r in caplog.records] == ["WARNING"] and "update 4945" in caplog.records[0].getMessage()
    # past the window: a spike again, then a second report past a limit inside it
    u = 4946 + SPIKE_WINDOW + 5
    mon.on_update({"updates": u, "grad_norm": 2.0e4, "policy/logit_std": 30.0})
    assert mon.diverged is None
    mon.on_update({"updates": u + SPIKE_WINDOW, "grad_norm": 5.0e5, "policy/logit_std": 40.0})
    assert mon.diverged == {"update": u, "figure": "grad_norm", "value": 2.0e4}
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    assert len(errors) == 1 and f"diverged at update {u}" in errors[0] and f"update <= {u - 1}" in errors[0]
    assert mon.n_spikes == 1 and list(mon.spikes) == [{"update": 4945, "value": 31503.9}]
    mon.tb.close()
