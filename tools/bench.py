"""Benchmarks that print figures (never asserted in tests).

    python -m tools.bench encode [--battles 20] [--teams DIR] [--format ID] [--repeat 3]
    python -m tools.bench e2e [--seconds 120] [--servers 2] [--concurrency 32] [--backend stream|server] [--format ID]
    python -m tools.bench backends [--seconds 60] [--train-seconds 120] [--servers 2] [--concurrency 32] [--format ID]
                                   [--backends stream,server] [--rounds 1]
    python -m tools.bench learner [--updates 30] [--batch-size 16] [--device auto] [--threads 1] [--set KEY=VALUE ...]
    python -m tools.bench infer [--batches 1,8,16,32,64] [--device auto] [--threads 1]
    python -m tools.bench sweep [--seconds 120] [--shards 1] [--servers 1,2] [--concurrency 16,24,32]
                                [--infer-batch 1,16] [--batch-size 16,32] [--format ID]
    python -m tools.bench ab [--seconds 90] [--rounds 2] [--a KEY=VALUE ...] --b KEY=VALUE ... [--servers 2] [--format ID]

`encode`, `e2e`, `backends`, `sweep` and `ab` play battles of `--format` (default Reg C) with
the pool `--teams` (default: the pool shipped for the format), both checked before
anything starts (a bad one: exit 2); their training runs are `reg_c` with
`showdown.format` (and `showdown.teams`) set to them. `learner` and `infer` time the
network on synthetic tensors: no format.

`e2e`, `backends` and `ab` play `--concurrency` battles a worker, by default `reg_c`'s
`sim.concurrency` (league/conf/experiment/reg_c.yaml), so they measure the default run.

`e2e` measures, in one command and one after the other on identical fleets (same
server count, concurrency and team pool), random-vs-random battles/s and the battles/s
of a real training run (`league.run experiment=reg_c`: batched inference, learner
process on, evaluation games included). Both rates are steady-state (first finished
battle to the end). Last stdout line: JSON with `train_battles_per_s`,
`random_battles_per_s`, `ratio`.

`ab` compares two training configurations on this box, in one command: `reg_c` with A's
overrides, then B's, `--rounds` times each, the order swapped every round (so the box's
drift falls on both); per round the battles/s and CPU per battle by role of each, and
B's battles/s over A's. Last stdout line: JSON with `rounds` and
`b_to_a_battles_per_s_median` (e.g. `--b sim.compile=true`: the compiled acting forward
against the eager one).

`backends` measures, one after the other on the same machine: the ceiling (Showdown's
simulator alone: league/showdown/ceiling.js, Showdown's RandomPlayerAI choosing for both
sides in Node, one process per core, no Python), random-vs-random battles/s on the stream
and on the server backend (`--servers` workers or servers × `--concurrency`), and a real
`reg_c` training run on each backend (`--train-seconds` after a 20-s warm-up). Last stdout
line: JSON with `ceiling_battles_per_s`, `{stream,server}_{random,train}_battles_per_s`,
their `_to_ceiling` ratios, turns per battle, and `cpu_s_per_battle` per measurement and
process role, from the processes' own CPU counters (psutil): `node_simulation` (stream
workers, or a server's battle processes), `node_server_overhead` (the rest of a server:
main process, sockets, validator, ...), `python_battles` / `python_simulator` (the process
that plays: poke-env, players, our framing), `python_decisions` / `python_simulator_decisions`
(observation + mask, part of it), `python_simulator_inference` (forwards, part of it),
`python_gc` / `python_simulator_gc` (garbage collections, part of it: league/heap.py),
`learner`, `python_main` (coordinator); `cpu_to_node`: the Python roles' CPU a battle as
a share of Node's in the same measurement, comparable between days on a box whose speed
moves ~3x (experiments/issue31_backends_slowbox). `--backends stream` measures one backend only;
`--rounds R` repeats the whole sequence R times (one run's ratios move by ±0.1 on a
2-core box, experiments/issue31_gc): the figures are then the medians over the rounds,
each ratio's `_range` its min and max, each round in `rounds`.

`sweep` runs `reg_c` briefly (`--seconds` after a 20-s warm-up) for every combination
of simulator shards (`--shards`, default 1: on many cores, e.g. `--shards 4,6,8 --servers
1`) × workers × concurrent battles per worker × inference batch (`sim.infer_batch`: 1
answers each event-loop tick's requests at once; n waits for n, at most
`sim.infer_wait_ms`) × learner batch size, prints one line per configuration
(battles/s, updates/s, learner samples/s = trajectories/s = updates/s × batch size, the
learner's busy share in cores, decisions per forward measured) and, last, JSON with every row and the recommended configuration:
the most learner samples/s among configurations whose learner is fed (busy ≥ 0.5
core). On a GPU box the learner's device is
whatever `learner.device` resolves to (printed in the run's log).

`learner` times `Learner.step` at the `reg_c` sizes (model, batch, schedule, η) on the
given device, in fp32 and, on CUDA, under AMP: CPU-seconds (and wall seconds) per
update, updates/s, trajectories/s and decisions/s (real steps), with α < 1 (four forwards) and α = 1 (π_reg_prev's
forward skipped) reported apart. Batches are synthetic and seeded: trajectory lengths
~ N(12, 4) clipped to [3, 40] (self-play battles of the first hour are 10–12 turns);
at each turn step each slot has 1–16 legal orders of its 45 (uniform) and the legal joint
actions are their pairs (~72 of 2,025 on average; recorded random battles: 81); the
cost depends on these shapes, not on the values. `infer` times one batched forward of the acting network (T = 1, the
simulator's call) by batch size: ms per forward and per decision. Both print JSON.

`encode` plays random-vs-random battles on a one-server fleet while recording both
sides' protocol, replays the recordings offline into fresh poke-env battles, and
times, at every decision point, the observation encoder and the legality mask
(request view + joint or team-preview mask) separately; the encoder's per-action parts
(league/battle/analysis.py: speeds, what each move/target/tera order and each switch
would do) are also timed on their own (`actions_ms_median`, included in
`encode_ms_median`). It then times the model's batched forward on CPU over those
states (`forward_ms_per_16`: one forward of 16 decisions, T=1, as the simulator acts).
Last stdout line: JSON with `states`, `encode_ms_median`, `actions_ms_median`,
`mask_ms_median`, p90s, the sum of medians and `forward_ms_per_16`.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from league import accel
from tools.cli import FORMAT


def _percentile(xs: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(xs), q)) if xs else float("nan")


def record_battles(
    n_battles: int, teams: list[str], seed: int = 0, battle_format: str = FORMAT
) -> list[tuple[str, list[str]]]:
    """Play random vs random in ``battle_format`` with ``teams`` (packed, validated for it:
    ``tools.cli.format_pool``) on a fresh 1-server fleet; return (username, lines) per side
    per battle."""
    from league.battle.replay import RecordingMixin
    from league.match import play_matches
    from league.players import RandomPlayer
    from league.showdown import ShowdownFleet, locate_showdown

    class RecordingRandom(RecordingMixin, RandomPlayer):
        pass

    install = locate_showdown()
    players: list = []

    def factory(**kw):
        p = RecordingRandom(**kw)
        players.append(p)
        return p

    with tempfile.TemporaryDirectory() as d, ShowdownFleet(1, d, install=install) as fleet:
        asyncio.run(
            play_matches(
                fleet, factory, factory, n_battles, teams, teams, battle_format=battle_format, concurrency=8, seed=seed
            )
        )
    out = []
    for p in players:
        for lines in p.recordings.values():
            out.append((p.username, lines))
    return out


def bench_encode(recordings, repeat: int = 3) -> dict:
    from league.battle.actions import JOINT_ACTIONS, joint_mask, preview_mask
    from league.battle.analysis import TurnAnalysis, analyse_moves, analyse_switches
    from league.battle.context import foe_alive
    from league.battle.obs import OBS_DIM, ObservationEncoder, move_vocab_id, split
    from league.battle.replay import replay

    enc = ObservationEncoder()
    buf = np.zeros(OBS_DIM, dtype=np.float32)
    parts = split(np.zeros(OBS_DIM, dtype=np.float32))
    enc_ms: list[float] = []
    act_ms: list[float] = []
    mask_ms: list[float] = []
    samples: list[tuple[np.ndarray, np.ndarray, bool]] = []
    pc = time.perf_counter_ns
    for username, lines in recordings:
        for battle, ctx in replay(lines, username):
            for r in range(repeat):
                t0 = pc()
                view = ctx.view(battle)
                if view.kind == "preview":
                    mask = preview_mask(view)
                else:
                    mask = joint_mask(view, foe_alive(battle))
                t1 = pc()
                enc.encode(battle, ctx.brought, view, buf)
                t2 = pc()
                if view.kind in ("move", "switch"):
                    for p in ("act_ids", "act_move", "act_target", "switch"):
                        parts[p].fill(0.0)
                    ta = TurnAnalysis(battle)
                    analyse_moves(
                        battle, view, parts["act_ids"], parts["act_move"], parts["act_target"], move_vocab_id, ta
                    )
                    analyse_switches(battle, ctx.brought, parts["switch"], ta)
                    act_ms.append((pc() - t2) / 1e6)
                mask_ms.append((t1 - t0) / 1e6)
                enc_ms.append((t2 - t1) / 1e6)
                if r == 0:
                    full = np.zeros(JOINT_ACTIONS, dtype=bool)
                    full[: len(mask)] = mask
                    samples.append((buf.copy(), full, view.kind == "preview"))
    em, mm, am = statistics.median(enc_ms), statistics.median(mask_ms), statistics.median(act_ms)
    return {
        "states": len(enc_ms) // repeat,
        "encode_ms_median": round(em, 4),
        "actions_ms_median": round(am, 4),
        "mask_ms_median": round(mm, 4),
        "encode_ms_p90": round(_percentile(enc_ms, 90), 4),
        "mask_ms_p90": round(_percentile(mask_ms, 90), 4),
        "sum_of_medians_ms": round(em + mm, 4),
        **bench_forward(samples),
    }


def bench_forward(samples, batch: int = 16, rounds: int = 30) -> dict:
    """Median ms of one batched forward (T=1, ``batch`` decisions) of the default model on CPU."""
    import torch

    from league.model.net import PolicyValueNet

    net = PolicyValueNet().eval()
    idx = np.arange(len(samples))
    rng = np.random.default_rng(0)
    times = []
    with torch.no_grad():
        for r in range(rounds + 3):
            pick = rng.choice(idx, size=batch)
            obs = torch.from_numpy(np.stack([samples[i][0] for i in pick]))[None]
            mask = torch.from_numpy(np.stack([samples[i][1] for i in pick]))[None]
            prev = torch.tensor([samples[i][2] for i in pick])[None]
            t0 = time.perf_counter()
            net(obs, mask, prev, net.initial_state(batch))
            if r >= 3:  # warm-up
                times.append((time.perf_counter() - t0) * 1e3)
    return {"forward_ms_per_16": round(statistics.median(times), 3), "torch_threads": torch.get_num_threads()}


def _node_role(cmdline: list[str]) -> str:
    """Which part of Showdown a Node process is: the simulation (a stream worker, or a
    server's battle process) or the rest of a server (main process, sockets, validator...)."""
    text = " ".join(cmdline)
    if "stream_worker.js" in text or "room-battle.js" in text:
        return "node_simulation"
    return "node_server_overhead"


def cpu_by_role(roles: dict[str, int | list[int]]) -> dict[str, float]:
    """CPU seconds (user + system) so far of each named process (``roles``: name -> pid,
    or name -> pids whose seconds add up: the simulator's shards) and of its Node
    descendants, from the processes' own counters (psutil)."""
    import psutil

    out: dict[str, float] = {}
    seen: set[int] = set()  # a Node process under two roles (the simulator is the main process's child) counts once
    for name, pid in ((n, p) for n, ps in roles.items() for p in (ps if isinstance(ps, list) else [ps])):
        try:
            proc = psutil.Process(pid)
            t = proc.cpu_times()
            out[name] = out.get(name, 0.0) + t.user + t.system
            children = proc.children(recursive=True)
        except psutil.Error:
            continue
        for c in children:
            if c.pid in seen:
                continue
            seen.add(c.pid)
            try:
                if c.name() != "node" and "node" not in (c.exe() or ""):
                    continue
                t, role = c.cpu_times(), _node_role(c.cmdline())
            except psutil.Error:
                continue
            out[role] = out.get(role, 0.0) + t.user + t.system
    return out


def _per_battle(c0: dict, c1: dict, battles: float) -> dict:
    return {k: round((c1.get(k, 0.0) - c0.get(k, 0.0)) / battles, 5) for k in sorted(c1)} if battles else {}


def bench_ceiling(seconds: float, procs: int, teams: list[str], battle_format: str = FORMAT) -> dict:
    """Showdown's simulator alone: ``procs`` Node processes (one per core), each playing
    RandomPlayerAI against itself back to back in ``battle_format`` with ``teams`` (packed)
    (league/showdown/ceiling.js)."""
    import subprocess

    from league.showdown import locate_showdown

    install = locate_showdown()
    js = Path(__file__).resolve().parents[1] / "league" / "showdown" / "ceiling.js"
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "teams.json"
        f.write_text(json.dumps(teams))
        ps = [
            subprocess.Popen(
                [install.node, str(js), str(install.package_dir), battle_format, str(f), str(seconds), str(k + 1)],
                stdout=subprocess.PIPE,
                text=True,
            )
            for k in range(procs)
        ]
        outs = [json.loads(p.communicate(timeout=seconds + 120)[0].strip().splitlines()[-1]) for p in ps]
    n = sum(o["battles"] for o in outs)
    return {
        "battles_per_s": round(sum(o["battles_per_s"] for o in outs), 3),
        "turns_per_battle": round(sum(o["turns"] for o in outs) / n, 2),
        "cpu_s_per_battle": {"node_simulation": round(sum(o["cpu_s"] for o in outs) / n, 5)},
    }


def bench_random(
    seconds: float,
    servers: int,
    concurrency: int,
    teams: list[str],
    backend: str = "server",
    battle_format: str = FORMAT,
) -> dict:
    """Random vs random in ``battle_format`` with ``teams`` (packed) on a fresh fleet of
    ``backend``: steady-state battles/s (first finished battle to the end) and CPU seconds
    per battle by process role."""
    import os

    from league import heap
    from league.match import play_matches
    from league.players import RandomPlayer
    from league.players.base import LeaguePlayer
    from league.showdown import locate_showdown, make_fleet

    install = locate_showdown()
    players: list = []

    def factory(**kw):
        players.append(RandomPlayer(**kw))
        return players[-1]

    async def go() -> dict:
        stop = asyncio.Event()
        task = asyncio.ensure_future(
            play_matches(
                fleet,
                factory,
                factory,
                None,
                teams,
                teams,
                battle_format=battle_format,
                concurrency=concurrency,
                stop=stop,
            )
        )
        t_first = None
        n_first = 0
        while t_first is None:
            await asyncio.sleep(0.2)
            n = sum(p.n_finished for p in players) // 2
            if n > 0:
                t_first, n_first = time.monotonic(), n
        c0, e0, g0 = cpu_by_role({"python_battles": os.getpid()}), LeaguePlayer.encode_cpu_s, heap.gc_cpu_s()
        await asyncio.sleep(seconds)
        n_end, t_end = sum(p.n_finished for p in players) // 2, time.monotonic()
        c1, e1, g1 = cpu_by_role({"python_battles": os.getpid()}), LeaguePlayer.encode_cpu_s, heap.gc_cpu_s()
        stop.set()
        await task
        c0["python_decisions"], c1["python_decisions"] = e0, e1  # part of python_battles
        c0["python_gc"], c1["python_gc"] = g0, g1  # part of python_battles (league/heap.py)
        return {
            "battles_per_s": round((n_end - n_first) / (t_end - t_first), 3),
            "turns_per_battle": round(sum(p.turns for p in players) / max(1, sum(p.n_finished for p in players)), 2),
            "cpu_s_per_battle": _per_battle(c0, c1, n_end - n_first),
        }

    with tempfile.TemporaryDirectory() as d, make_fleet(backend, servers, d, install=install) as fleet:
        return asyncio.run(go())


def bench_train(
    seconds: float,
    servers: int,
    concurrency: int,
    teams_dir: str | None,
    backend: str = "server",
    warmup: float = 20.0,
    overrides: tuple[str, ...] = (),
    battle_format: str = FORMAT,
) -> dict:
    """A real ``reg_c`` run (``showdown.format=battle_format``, ``showdown.teams=teams_dir``
    when given) on ``backend`` for ``seconds`` after ``warmup``: battles/s,
    learner updates/s, the learner's busy share (its CPU seconds per second: near 1 it is
    the bottleneck, low it starves) and CPU seconds per battle by role over that window
    (the simulator process split into its decisions, forwards and the rest by its own
    thread-CPU counters). ``overrides``: more Hydra overrides for the run; an item
    ``env:NAME=VALUE`` sets an environment variable of the run instead
    (``env:LEAGUE_ACCEL=0``: the decision's modules as plain Python)."""
    import os
    import signal
    import subprocess
    import threading

    with tempfile.TemporaryDirectory() as d:
        args = [
            sys.executable,
            "-m",
            "league.run",
            "experiment=reg_c",
            f"hydra.run.dir={d}",
            # a cap only: the run is stopped (SIGTERM, a clean end) once the window has passed,
            # however long it took to start (a compiled policy: ~20 s before the first battle)
            f"run.max_minutes={(seconds + warmup) / 60 + 5}",
            f"sim.servers={servers}",
            f"sim.concurrency={concurrency}",
            f"sim.backend={backend}",
            "run.progress_every_s=1",
            f"showdown.format={battle_format}",
            *(o for o in overrides if not o.startswith("env:")),
        ]
        env = dict(o.removeprefix("env:").split("=", 1) for o in overrides if o.startswith("env:"))
        if teams_dir:
            args.append(f"showdown.teams={teams_dir}")
        # unbuffered: the progress lines (battle counts) must arrive when printed
        proc = subprocess.Popen(
            args,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **env, "PYTHONUNBUFFERED": "1"},
        )
        out, errs = proc.stdout, proc.stderr
        assert out is not None and errs is not None  # (both piped)
        lines: list[str] = []
        threading.Thread(target=lambda: lines.extend(out), daemon=True).start()
        err: list[str] = []
        threading.Thread(target=lambda: err.extend(errs), daemon=True).start()

        def progress() -> tuple[int, int]:  # (battles, updates) of the last progress line
            for line in reversed(lines):
                if "| battles" in line:
                    return (int(line.split("| battles")[1].split("|")[0]), int(line.split("updates")[1].split("|")[0]))
            return 0, 0

        samples = []  # (time, (battles, updates), cpu by role)
        roles = None
        stopping = False
        while proc.poll() is None:
            time.sleep(1.0)
            pj = Path(d) / "processes.json"
            if roles is None and pj.exists():
                try:
                    r = json.loads(pj.read_text())
                    # every shard's simulator process (one before sim.shards existed)
                    shards = r.get("shards") or [r["simulator"]]
                    roles = {"python_main": r["main"], "learner": r["learner"], "python_simulator": shards}
                except (ValueError, KeyError):
                    roles = None
            if roles is not None and progress()[0] > 0:
                c = cpu_by_role(roles)
                if all(k in c for k in roles):  # not while processes are exiting
                    samples.append((time.monotonic(), progress(), c))
            if samples and time.monotonic() > samples[0][0] + warmup + seconds + 2 and not stopping:
                proc.send_signal(signal.SIGTERM)  # the window is complete: end the run cleanly
                stopping = True
        proc.wait()
        if proc.returncode != 0:
            raise SystemExit(f"training run failed:\n{''.join(err)[-3000:]}")
        summary = json.loads(lines[-1])
    t_start = samples[0][0] + warmup  # the window ends before the run stops its processes
    window = [x for x in samples if t_start <= x[0] <= t_start + seconds]
    (t0, (n0, u0), c0), (t1, (n1, u1), c1) = window[0], window[-1]
    per = _per_battle(c0, c1, n1 - n0)
    cpu = summary.get("sim_cpu", {})
    if cpu.get("process_s") and "python_simulator" in per:  # the simulator's own split, as fractions of it
        sim = per["python_simulator"]
        per["python_simulator_decisions"] = round(sim * cpu["encode_s"] / cpu["process_s"], 5)
        per["python_simulator_inference"] = round(sim * cpu["infer_s"] / cpu["process_s"], 5)
        per["python_simulator_gc"] = round(sim * cpu["gc_s"] / cpu["process_s"], 5)  # league/heap.py
    return {
        "battles_per_s": round((n1 - n0) / (t1 - t0), 3),
        "updates_per_s": round((u1 - u0) / (t1 - t0), 3),
        "learner_busy": round((c1["learner"] - c0["learner"]) / (t1 - t0), 3),
        "updates": summary["updates"],
        "showdown_errors": summary["showdown_errors"],
        "infer_batch_mean": summary.get("infer_batch_mean"),
        "cpu_s_per_battle": per,
    }


def _synthetic_batch(rng: np.random.Generator, B: int, T_mean: float = 12.0):
    """A right-padded learner Batch of seeded synthetic shapes (see the module doc)."""
    import torch

    from league.battle.actions import JOINT_ACTIONS, PREVIEW_ACTIONS, SLOT_ACTIONS
    from league.battle.obs import OBS_DIM
    from league.transport.data import Batch

    lengths = np.clip(rng.normal(T_mean, 4.0, B).astype(int), 3, 40)
    T = int(lengths.max())
    valid = torch.arange(T)[:, None] < torch.from_numpy(lengths)[None, :]
    # each slot 1-16 legal orders, the joint actions their pairs (as a real turn's mask)
    slot = np.zeros((T, B, 2, SLOT_ACTIONS), dtype=bool)
    for t, b, k in np.ndindex(T, B, 2):
        slot[t, b, k, rng.choice(SLOT_ACTIONS, rng.integers(1, 17), replace=False)] = True
    mask = torch.from_numpy(slot[:, :, 0, :, None] & slot[:, :, 1, None, :]).reshape(T, B, JOINT_ACTIONS)
    mask[0] = False
    mask[0, :, :PREVIEW_ACTIONS] = True  # step 0: team preview, its 90 picks
    is_preview = torch.zeros(T, B, dtype=torch.bool)
    is_preview[0] = True
    reward = torch.zeros(T, B)
    reward[torch.from_numpy(lengths - 1), torch.arange(B)] = torch.from_numpy(rng.choice([-1.0, 1.0], B)).float()
    return Batch(
        torch.zeros(T, B, OBS_DIM),
        mask,
        is_preview,
        mask.to(torch.uint8).argmax(-1),  # each step's first legal action
        torch.full((T, B), -3.0),
        reward,
        valid,
    ), int(lengths.sum())


def bench_learner(
    updates: int = 30,
    batch_size: int = 16,
    device: str = "auto",
    threads: int = 1,
    compile: bool = False,
    overrides: Sequence[str] = (),
) -> dict:
    """Learner.step at the reg_c sizes: per update CPU and wall time, updates/s, trajectories/s
    and decisions (real steps)/s; fp32 and, on CUDA, AMP in float16 and bfloat16; with
    ``compile`` each mode also compiled (warm-up time reported). ``overrides``: KEY=VALUE
    settings on top of reg_c (``learner.*``, ``model.*``), checked as a run's are."""
    import dataclasses

    import torch
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    from league.config import Config, ConfigError, to_object, verify
    from league.device import resolve_device
    from league.learn.learner import Learner
    from tools import cli

    torch.set_num_threads(threads)
    dev = resolve_device(device)
    exp = OmegaConf.load(REG_C)
    try:
        cfg = to_object(OmegaConf.merge(OmegaConf.structured(Config), exp, OmegaConf.from_dotlist(list(overrides))))
        verify(cfg)
    except (ConfigError, OmegaConfBaseException) as e:  # one line: the key and what is wrong
        what = "; ".join(e.problems) if isinstance(e, ConfigError) else str(e).splitlines()[0]
        cli.bad_input(f"--set {' '.join(overrides)}: {what}")
    rng = np.random.default_rng(0)
    batches = [_synthetic_batch(rng, batch_size) for _ in range(updates)]
    out: dict = {
        "device": dev,
        "threads": threads,
        "batch_size": batch_size,
        "decisions_per_update": round(sum(n for _, n in batches) / updates, 1),
        "overrides": list(overrides),
        "runs": {},
    }
    modes: list[tuple[str, dict[str, Any]]] = [("fp32", {"amp": False})]
    if dev == "cuda":
        modes.append(("amp_fp16", {"amp": True, "amp_dtype": "float16"}))
        if torch.cuda.is_bf16_supported():
            modes.append(("amp_bf16", {"amp": True, "amp_dtype": "bfloat16"}))
    if compile:
        modes += [(f"{name}_compiled", {**kw, "compile": True}) for name, kw in modes]
    half = cfg.learner.schedule_sizes[0] // 2  # alpha = 1 from the middle of an iteration to its end
    if updates + 3 > half:
        raise SystemExit(f"--updates must be at most {half - 3} (half a reg_c iteration, less the warm-up)")
    for name, kw in modes:
        # alpha < 1: pi_reg and pi_reg_prev read; alpha = 1: pi_reg only; eta 0 (a best
        # response's or an exploiter's learner): neither
        for label, start, eta in (("alpha_lt_1", 0, None), ("alpha_1", half, None), ("eta_0", 0, 0.0)):
            lc = dataclasses.replace(cfg.learner, **kw)
            if eta is not None:
                lc = dataclasses.replace(lc, rnad=dataclasses.replace(lc.rnad, eta=eta))
            L = Learner(lc, cfg.model, device=dev)
            L.steps = start
            w0 = time.perf_counter()
            L.warm_up(batches[0][0])
            for b, _ in batches[:3]:  # warm-up
                L.step(b)
            if dev == "cuda":
                torch.cuda.synchronize()
            warm_s = time.perf_counter() - w0
            c0, w0 = time.process_time(), time.perf_counter()
            for b, _ in batches:
                L.step(b)
            if dev == "cuda":
                torch.cuda.synchronize()
            cpu, wall = (time.process_time() - c0) / updates, (time.perf_counter() - w0) / updates
            out["runs"][f"{name}_{label}"] = {
                "warm_up_s": round(warm_s, 1),
                "cpu_ms_per_update": round(1000 * cpu, 1),
                "wall_ms_per_update": round(1000 * wall, 1),
                "updates_per_s": round(1 / wall, 2),
                "trajectories_per_s": round(batch_size / wall, 1),
                "decisions_per_s": round(out["decisions_per_update"] / wall, 1),
            }
    return out


def bench_infer(
    batches: list[int], device: str = "auto", threads: int = 1, rounds: int = 30, compile: bool = False
) -> dict:
    """One batched acting forward (T = 1) of the reg_c network by batch size (eager, or
    compiled as ``sim.compile`` does: dynamic shapes, warm-up time reported)."""
    import torch

    from league.battle.actions import JOINT_ACTIONS
    from league.battle.obs import OBS_DIM
    from league.device import resolve_device
    from league.model.net import PolicyValueNet

    torch.set_num_threads(threads)
    dev = resolve_device(device)
    net = PolicyValueNet().eval().to(dev)
    fwd = torch.compile(net, dynamic=True) if compile else net
    rng = np.random.default_rng(0)
    out: dict = {"device": dev, "threads": threads, "compiled": compile, "rows": []}
    with torch.no_grad():
        for B in batches:
            obs = torch.zeros(1, B, OBS_DIM, device=dev)
            mask = torch.from_numpy(rng.random((1, B, JOINT_ACTIONS)) < 0.05).to(dev)
            mask[..., 0] = True
            prev = torch.zeros(1, B, dtype=torch.bool, device=dev)
            h = net.initial_state(B, dev)
            times = []
            for r in range(rounds + 3):
                t0 = time.perf_counter()
                logits, _, _ = fwd(obs, mask, prev, h)
                logits.cpu()
                if r == 0:
                    first = time.perf_counter() - t0
                if r >= 3:
                    times.append(time.perf_counter() - t0)
            ms = 1000 * statistics.median(times)
            out["rows"].append(
                {
                    "batch": B,
                    "ms_per_forward": round(ms, 3),
                    "ms_per_decision": round(ms / B, 4),
                    "first_call_s": round(first, 2),
                }
            )
    return out


def bench_sweep(
    seconds: float,
    workers: list[int],
    concurrency: list[int],
    batch_sizes: list[int],
    teams_dir: str | None,
    backend: str,
    infer_batches: Sequence[int] = (1,),
    battle_format: str = FORMAT,
    shards: Sequence[int] = (1,),
) -> dict:
    """Training throughput over simulator shards x workers x concurrent battles x inference
    batch x learner batch size, one short ``reg_c`` run each (``infer_batch`` 1: a forward
    per event-loop tick's requests; n: the forward waits for n requests or
    ``sim.infer_wait_ms``; each row also gives the decisions per forward measured). A
    shard is a simulator process with its own ``workers``: on a machine of many cores
    shards are what use them (a shard's Python and its Node worker take turns, ~1.6 cores
    together: experiments/gpu). A row of more than one shard gives each shard a slot per
    battle in flight (``sim.n_slots`` = shards x workers x concurrency, at least reg_c's
    64). Recommends the configuration with the most learner samples/s (updates/s x batch
    size) among those whose learner is fed (busy share >= 0.5 core: it is not starved),
    else the fastest."""
    import itertools

    rows = []
    for s, w, c, i, b in itertools.product(shards, workers, concurrency, infer_batches, batch_sizes):
        more = (f"sim.shards={s}", f"sim.n_slots={max(64, s * w * c)}") if s > 1 else ()
        t = bench_train(
            seconds,
            w,
            c,
            teams_dir,
            backend,
            overrides=(f"learner.batch_size={b}", f"sim.infer_batch={i}", *more),
            battle_format=battle_format,
        )
        row = {
            "shards": s,
            "workers": w,
            "concurrency": c,
            "infer_batch": i,
            "batch_size": b,
            "battles_per_s": t["battles_per_s"],
            "updates_per_s": t["updates_per_s"],
            "samples_per_s": round(t["updates_per_s"] * b, 2),
            "learner_busy": t["learner_busy"],
            "infer_batch_mean": t["infer_batch_mean"],
            "showdown_errors": t["showdown_errors"],
        }
        rows.append(row)
        print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    fed = [r for r in rows if r["learner_busy"] >= 0.5] or rows
    best = max(fed, key=lambda r: r["samples_per_s"])
    from league.device import resolve_device

    return {
        "format": battle_format,
        "backend": backend,
        "seconds": seconds,
        "learner_device": resolve_device("auto"),
        "rows": rows,
        "recommended": {k: best[k] for k in ("shards", "workers", "concurrency", "infer_batch", "batch_size")},
        "recommended_samples_per_s": best["samples_per_s"],
    }


def bench_ab(
    seconds: float,
    workers: int,
    concurrency: int,
    teams_dir: str | None,
    a: Sequence[str],
    b: Sequence[str],
    rounds: int = 2,
    backend: str = "stream",
    battle_format: str = FORMAT,
) -> dict:
    """Two training configurations on one box, alternated (A, B, B, A, A, B, ...: each
    round changes which runs first, so a drift of the box falls on both): ``reg_c`` with
    the Hydra overrides ``a``, then with ``b``, ``rounds`` times each. Per round the
    battles/s and CPU seconds per battle by role of each, and B's battles/s over A's;
    the medians of those ratios over the rounds."""
    rows = []
    ratios: list[float] = []
    for r in range(rounds):
        order = (("a", a), ("b", b)) if r % 2 == 0 else (("b", b), ("a", a))
        got = {}
        for name, ov in order:
            t = bench_train(
                seconds, workers, concurrency, teams_dir, backend, overrides=tuple(ov), battle_format=battle_format
            )
            got[name] = t
            print(f"round {r} {name}: battles/s {t['battles_per_s']} updates/s {t['updates_per_s']}", flush=True)
        ratio = round(got["b"]["battles_per_s"] / got["a"]["battles_per_s"], 3) if got["a"]["battles_per_s"] else None
        if ratio is not None:
            ratios.append(ratio)
        rows.append({"round": r, "first": order[0][0], "a": got["a"], "b": got["b"], "b_to_a_battles_per_s": ratio})
    return {
        "format": battle_format,
        "backend": backend,
        "workers": workers,
        "concurrency": concurrency,
        "a": list(a),
        "b": list(b),
        "rounds": rows,
        "b_to_a_battles_per_s_median": round(statistics.median(ratios), 3) if ratios else None,
    }


def bench_backends(
    seconds: float,
    workers: int,
    concurrency: int,
    teams: list[str],
    teams_dir: str | None,
    train_seconds: float,
    battle_format: str = FORMAT,
    backends: Sequence[str] = ("stream", "server"),
    rounds: int = 1,
) -> dict:
    """``teams``: the pool ``teams_dir`` (None: the shipped one) packed and validated for
    ``battle_format`` (``tools.cli.format_pool``), for the ceiling and random play; the
    training runs read ``teams_dir`` themselves. ``backends``: which of stream and
    server are measured. ``rounds`` > 1: the whole sequence (ceiling, random play,
    training) that many times, each round's ratios to its own ceiling; the top-level
    figures are then the medians over the rounds (:func:`median_rounds`), each round's
    in ``rounds``, and each ratio's ``_range`` (min, max)."""
    import os

    cores = os.cpu_count() or 1
    rows = []
    for r in range(rounds):
        ceiling = bench_ceiling(seconds, cores, teams, battle_format)
        out: dict = {
            "ceiling_battles_per_s": ceiling["battles_per_s"],
            "ceiling_turns_per_battle": ceiling["turns_per_battle"],
        }
        cpu = {"ceiling": ceiling["cpu_s_per_battle"]}
        for backend in backends:
            rnd = bench_random(seconds, workers, concurrency, teams, backend, battle_format)
            out[f"{backend}_random_battles_per_s"] = rnd["battles_per_s"]
            out[f"{backend}_random_turns_per_battle"] = rnd["turns_per_battle"]
            cpu[f"{backend}_random"] = rnd["cpu_s_per_battle"]
        for backend in backends:
            t = bench_train(train_seconds, workers, concurrency, teams_dir, backend, battle_format=battle_format)
            out[f"{backend}_train_battles_per_s"] = t["battles_per_s"]
            out[f"{backend}_train_updates"] = t["updates"]
            out[f"{backend}_train_showdown_errors"] = t["showdown_errors"]
            cpu[f"{backend}_train"] = t["cpu_s_per_battle"]
        c = out["ceiling_battles_per_s"]
        for b in backends:
            for k in (f"{b}_random", f"{b}_train"):
                out[f"{k}_to_ceiling"] = round(out[f"{k}_battles_per_s"] / c, 3) if c else None
        out["cpu_s_per_battle"] = cpu
        out["cpu_to_node"] = cpu_to_node(cpu)
        rows.append(out)
        if rounds > 1:
            print(f"round {r}: " + json.dumps({k: v for k, v in out.items() if k.endswith("_to_ceiling")}), flush=True)
    head = {
        "format": battle_format,
        "cores": cores,
        "workers": workers,
        "concurrency": concurrency,
        "accel": accel.mode(),  # the decision's modules compiled or plain (league/accel)
    }
    if rounds == 1:
        return {**head, **rows[0]}
    return {**head, **median_rounds(rows), "rounds": rows}


def cpu_to_node(cpu: dict) -> dict:
    """Each Python role's CPU a battle as a share of Node's simulation CPU in the same
    measurement (``cpu_s_per_battle``'s ``*_random`` and ``*_train`` entries): comparable
    between days on a box whose speed varies ~3x (issue 31's day had Node at 28 ms a
    training battle, so its Python target, 15 ms, is ~0.54 of Node's)."""
    out: dict = {}
    for kind, roles in cpu.items():
        node = roles.get("node_simulation")
        if kind == "ceiling" or not node:
            continue
        out[kind] = {
            k: round(v / node, 3) for k, v in roles.items() if k in ("python_battles", "python_simulator", "learner")
        }
    return out


def median_rounds(rows: list[dict]) -> dict:
    """The median over rounds of every number in ``rows`` (dicts of the same shape,
    nested dicts taken key by key; a key missing from a round is left out of that
    key's median), and for each ``*_to_ceiling`` ratio its ``*_to_ceiling_range``
    [min, max]. Integers (updates, errors) stay integers: the lower median."""
    out: dict = {}
    keys = dict.fromkeys(k for row in rows for k in row)
    for k in keys:
        vals = [row[k] for row in rows if k in row and row[k] is not None]
        if not vals:
            out[k] = None
        elif isinstance(vals[0], dict):
            out[k] = median_rounds(vals)
        elif all(isinstance(v, int) for v in vals):
            out[k] = statistics.median_low(vals)
        else:
            out[k] = round(statistics.median(vals), 5)
        if k.endswith("_to_ceiling") and vals:
            out[f"{k}_range"] = [min(vals), max(vals)]
    return out


def bench_replays(logs: list[Path], n: int, workers: int, out_dir: Path) -> dict:
    """``tools.bc parse-replays`` at scale: ``n`` replays in the replay site's ``.json``
    form, written from our own recorded battles (``logs``, each as a replay shows it,
    cycled with new ids), parsed on ``workers`` processes: replays/s and peak RSS (this
    process and, separately, the largest worker)."""
    import resource

    from league.bc.record import as_replay, read_log
    from league.bc.replays import build_replay_dataset

    src = out_dir / "replays"
    src.mkdir(parents=True, exist_ok=True)
    texts = [as_replay(p) for p in logs]
    fmt = json.loads(read_log(logs[0]).split("\n", 1)[0][6:]).get("format", "")
    for i in range(n):
        (src / f"bench-{i:06d}.json").write_text(
            json.dumps({"id": f"bench-{i:06d}", "formatid": fmt, "log": texts[i % len(texts)]})
        )
    t0 = time.monotonic()
    m = build_replay_dataset(src, out_dir / "data", on_error=lambda s: None, on_replay=lambda s: None, workers=workers)
    wall = time.monotonic() - t0
    return {
        "format": fmt,
        "replays": m["logs"],
        "battles": m["battles"],
        "errors": len(m["errors"]),
        "workers": workers,
        "distinct_logs": len(texts),
        "decisions": m["decisions"],
        "decisions_partial": m["decisions_partial"],
        "decisions_total": m["decisions_total"],
        "shown_reconstructed": m["shown_reconstructed"],
        "all_reconstructed": m["all_reconstructed"],
        "wall_s": round(wall, 2),
        "replays_per_s": round(m["logs"] / wall, 2),
        "peak_rss_mb_main": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "peak_rss_mb_largest_worker": round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, 1),
    }


REG_C = Path(__file__).resolve().parents[1] / "league" / "conf" / "experiment" / "reg_c.yaml"


def _reg_c_concurrency() -> int:
    """``sim.concurrency`` as the default experiment sets it."""
    from omegaconf import OmegaConf

    return int(OmegaConf.load(REG_C).sim.concurrency)


def main(argv=None) -> dict:
    from tools import cli

    ap = cli.parser("python -m tools.bench", __doc__)
    sub = cli.subparsers(ap)
    e = sub.add_parser("encode", help="time the observation encoder and legality masks on recorded play")
    cli.add_battles(e, 20, "random battles to record")
    cli.add_teams(e)
    cli.add_format(e)
    e.add_argument("--repeat", type=int, default=3, help="timings per decision point")
    e.add_argument("--save", default=None, help="also write the recordings (JSON) here")
    e2e = sub.add_parser("e2e", help="training battles/s next to random-vs-random battles/s")
    e2e.add_argument("--seconds", type=float, default=120.0, help="per measurement")
    cli.add_fleet(e2e, concurrency=_reg_c_concurrency())
    cli.add_teams(e2e)
    cli.add_format(e2e)
    b = sub.add_parser("backends", help="simulator ceiling vs stream and server backends, random and training")
    b.add_argument("--seconds", type=float, default=60.0, help="per random/ceiling measurement")
    b.add_argument("--train-seconds", type=float, default=120.0, help="per training measurement, after warm-up")
    b.add_argument(
        "--backends", default="stream,server", help="which backends are measured (comma-separated: stream, server)"
    )
    b.add_argument(
        "--rounds", type=int, default=1, help="the whole sequence this many times; the figures are the medians"
    )
    cli.add_fleet(b, concurrency=_reg_c_concurrency(), backend=False)
    cli.add_teams(b)
    cli.add_format(b)
    ab = sub.add_parser("ab", help="two training configurations alternated on one box: B's battles/s over A's")
    ab.add_argument("--seconds", type=float, default=90.0, help="per training measurement, after warm-up")
    ab.add_argument("--rounds", type=int, default=2, help="runs of each configuration (the order alternates)")
    ab.add_argument("--a", nargs="*", default=[], metavar="KEY=VALUE", help="Hydra overrides of A (default: none)")
    ab.add_argument(
        "--b",
        nargs="*",
        default=[],
        metavar="KEY=VALUE",
        help="Hydra overrides of B (env:NAME=VALUE: an environment variable, e.g. env:LEAGUE_ACCEL=0)",
    )
    cli.add_fleet(ab, concurrency=_reg_c_concurrency())
    cli.add_teams(ab)
    cli.add_format(ab)
    lb = sub.add_parser("learner", help="Learner.step at the reg_c sizes: updates/s, trajectories/s, decisions/s")
    lb.add_argument("--updates", type=int, default=30, help="timed updates per mode")
    lb.add_argument("--batch-size", type=int, default=16, help="trajectories per update")
    lb.add_argument("--device", default="auto", help="auto, cpu or cuda")
    lb.add_argument("--threads", type=int, default=1, help="torch threads (the learner process uses 1)")
    lb.add_argument("--compile", action="store_true", help="also time each mode compiled (learner.compile)")
    lb.add_argument(
        "--set", nargs="*", default=[], metavar="KEY=VALUE", help="settings on top of reg_c (learner.*, model.*)"
    )
    ib = sub.add_parser("infer", help="batched acting forward latency by batch size")
    ib.add_argument("--batches", default="1,8,16,32,64", help="comma-separated batch sizes")
    ib.add_argument("--device", default="auto", help="auto, cpu or cuda")
    ib.add_argument("--threads", type=int, default=1, help="torch threads (the simulator uses 1)")
    ib.add_argument("--compile", action="store_true", help="the forward compiled (sim.compile)")
    sw = sub.add_parser("sweep", help="training throughput over shards x workers x concurrency x learner batch size")
    sw.add_argument("--seconds", type=float, default=120.0, help="per configuration, after a 20-s warm-up")
    sw.add_argument(
        "--shards", default="1", help="comma-separated simulator shard counts (many cores: e.g. 4,6,8 with --servers 1)"
    )
    sw.add_argument(
        "--servers", "--workers", dest="workers", default="1,2", help="comma-separated stream worker (or server) counts"
    )
    sw.add_argument("--concurrency", default="16,24,32", help="comma-separated battles at a time per worker")
    sw.add_argument("--infer-batch", default="1,16", help="comma-separated sim.infer_batch values")
    sw.add_argument("--batch-size", default="16,32", help="comma-separated learner batch sizes")
    sw.add_argument("--backend", choices=("stream", "server"), default="stream", help="the fleet's backend")
    cli.add_teams(sw)
    cli.add_format(sw)
    rp = sub.add_parser("replays", help="tools.bc parse-replays at scale: replays/s and peak RSS")
    rp.add_argument("--replays", type=int, default=10000, help="replays to write and parse")
    rp.add_argument("--logs", default=None, help="recorded battle logs to make them from (default: play --battles)")
    cli.add_battles(rp, 200, "battles to record first (maxdamage mix, tools.bc generate) when --logs is not given")
    rp.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="parsing processes")
    cli.add_teams(rp)
    cli.add_format(rp)
    args = ap.parse_args(argv)
    if args.cmd == "replays":
        cli.check_positive(**{"--replays": args.replays, "--workers": args.workers, "-n": args.battles})
        with tempfile.TemporaryDirectory(prefix="bench-replays-") as tmp:
            if args.logs:
                logs = sorted(p for p in Path(args.logs).iterdir() if p.suffix in (".log", ".gz"))
                if not logs:
                    cli.bad_input(f"--logs {args.logs}: no recorded battle logs there")
            else:
                from tools.bc import generate

                teams = cli.format_pool(args.format, args.teams)
                generate(args.battles, Path(tmp) / "logs", 2, teams, 24, 0, battle_format=args.format)
                logs = sorted((Path(tmp) / "logs").glob("*.log"))
            out = bench_replays(logs, args.replays, args.workers, Path(tmp))
        print(json.dumps(out))
        return out
    if args.cmd == "learner":
        out = bench_learner(args.updates, args.batch_size, args.device, args.threads, args.compile, args.set)
        print(json.dumps(out))
        return out
    if args.cmd == "infer":
        out = bench_infer([int(x) for x in args.batches.split(",")], args.device, args.threads, compile=args.compile)
        print(json.dumps(out))
        return out
    if args.cmd == "sweep":
        ints = lambda text: [int(x) for x in text.split(",")]  # noqa: E731
        cli.format_pool(args.format, args.teams)  # checked before the first run (which checks them again)
        out = bench_sweep(
            args.seconds,
            ints(args.workers),
            ints(args.concurrency),
            ints(args.batch_size),
            args.teams,
            args.backend,
            ints(args.infer_batch),
            args.format,
            ints(args.shards),
        )
        print(json.dumps(out))
        return out
    if args.cmd == "ab":
        cli.check_positive(**{"--seconds": args.seconds, "--rounds": args.rounds})
        for ov in (*args.a, *args.b):
            if (
                "=" not in ov
                or ov.startswith("env:=")
                or ov.startswith("env:")
                and not ov[4:].split("=")[0].isidentifier()
            ):
                cli.bad_input(
                    f"--a/--b {ov!r}: an override is KEY=VALUE (e.g. sim.compile=true) or env:NAME=VALUE "
                    "(e.g. env:LEAGUE_ACCEL=0)"
                )
        cli.format_pool(args.format, args.teams)  # checked before the first run (which checks them again)
        out = bench_ab(
            args.seconds,
            args.servers,
            args.concurrency,
            args.teams,
            args.a,
            args.b,
            args.rounds,
            args.backend,
            args.format,
        )
        print(json.dumps(out))
        return out
    if args.cmd == "backends":
        backends = [b.strip() for b in args.backends.split(",") if b.strip()]
        bad = [b for b in backends if b not in ("stream", "server")]
        if bad or not backends:
            cli.bad_input(f"--backends {args.backends!r}: a comma-separated list of stream and server")
        if args.rounds < 1:
            cli.bad_input(f"--rounds {args.rounds}: at least 1")
        teams = cli.format_pool(args.format, args.teams)
        out = bench_backends(
            args.seconds,
            args.servers,
            args.concurrency,
            teams,
            args.teams,
            args.train_seconds,
            args.format,
            backends=list(dict.fromkeys(backends)),
            rounds=args.rounds,
        )
        print(json.dumps(out))
        return out
    if args.cmd == "e2e":
        teams = cli.format_pool(args.format, args.teams)
        rnd = bench_random(args.seconds, args.servers, args.concurrency, teams, args.backend, args.format)[
            "battles_per_s"
        ]
        train = bench_train(
            args.seconds, args.servers, args.concurrency, args.teams, args.backend, battle_format=args.format
        )
        out = {
            "format": args.format,
            "servers": args.servers,
            "concurrency": args.concurrency,
            "random_battles_per_s": round(rnd, 3),
            "train_battles_per_s": train["battles_per_s"],
            "ratio": round(train["battles_per_s"] / rnd, 3) if rnd else None,
            "train_updates": train["updates"],
            "train_showdown_errors": train["showdown_errors"],
        }
        print(json.dumps(out))
        return out
    if args.cmd == "encode":
        recs = record_battles(args.battles, cli.format_pool(args.format, args.teams), battle_format=args.format)
        if args.save:
            Path(args.save).write_text(json.dumps(recs))
        out = {"format": args.format, **bench_encode(recs, args.repeat)}
        print(json.dumps(out))
        return out
    raise SystemExit(f"unknown command {args.cmd}")  # pragma: no cover


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
