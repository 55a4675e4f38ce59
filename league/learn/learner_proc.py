"""The learner process: wraps :class:`~league.learn.learner.Learner` with its wiring.

In:  experience slot messages (pyzmq PULL, msgpack) naming filled shared-memory slots;
     control messages (pyzmq SUB): ``stop``, ``counters`` (the run's counters to store
     in checkpoints), ``reset`` addressed to this learner's name (league exploiters:
     back to the initial weights), ``portfolio`` (its reference members' checkpoints).
Out: weights (SharedWeights, version++ every ``publish_every`` updates), freed slots
     (slot states in shared memory), stats and checkpoint notices (pyzmq PUSH to the main process).
"""

from __future__ import annotations

import copy
import logging
import time
import traceback

import msgpack
import numpy as np
import torch
import zmq

from league import checkpoint as ckpt
from league.transport.messages import (
    Checkpoint,
    Counters,
    Error,
    Final,
    Heartbeat,
    PortfolioAck,
    Reset,
    ResetDone,
    SetPortfolio,
    Stop,
    Update,
)
from league.transport.wiring import ComponentSockets, exit_with_parent
from league.learn.learner import Learner
from league.sim.experience import agent_key

log = logging.getLogger(__name__)


def take_batch(ready: list[tuple[int, int, int]], bs: int, pair: bool) -> tuple[list, list]:
    """The next batch from ``ready`` ((slot, version, battle key), oldest first): the
    ``bs`` oldest; with ``pair`` (rnad.opponent_kl) a taken trajectory's self-play
    partner waiting further back comes along, so a batch may hold ``bs + 1``."""
    take, rest = ready[:bs], ready[bs:]
    if not pair:
        return take, rest
    keys = [k for _, _, k in take if k]
    for key in keys:
        if sum(1 for _, _, k in take if k == key) == 1:
            i = next((i for i, r in enumerate(rest) if r[2] == key), None)
            if i is not None and len(take) <= bs:
                take.append(rest.pop(i))
    return take, rest


def learner_main(cfg, run_dir: str, addr: dict, exp, weights, device: str, resume_from: str | None,
                 name: str = "learner", max_updates: int = 0, resettable: bool = False) -> None:
    """``name`` tags its messages ("learner" for the main agent, "learner:<id>" for an
    exploiter); ``max_updates`` > 0 makes it stop by itself after that many updates;
    ``resettable`` keeps the initial state for ``reset`` commands."""
    exit_with_parent()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s learner %(levelname)s %(message)s")
    torch.set_num_threads(1)
    io = ComponentSockets(addr, name)
    send = io.send
    pull = io.ctx.socket(zmq.PULL)
    pull.bind(addr["experience"])
    try:
        L = Learner(cfg.learner, cfg.model, device=device, seed=cfg.run.seed)
        initial = None
        if resettable:  # the initial weights are the fresh (or init_checkpoint) ones, also on resume
            ckpt.restore_learner(L, cfg, None)
            initial = copy.deepcopy(L.state_dict())
        counters = ckpt.restore_learner(L, cfg, resume_from)
        agent = name.split(":", 1)[1] if ":" in name else "main"
        owner = agent_key(agent)
        version = weights.publish(L.net, owner)

        def save(tag: str) -> str:
            state = ckpt.learner_state(L, counters, cfg, version)
            path = ckpt.save_checkpoint(run_dir, state, L.steps, keep=cfg.learner.keep_checkpoints)
            send(Checkpoint(str(path), L.steps, tag))
            return str(path)

        # (slot, behaviour version); a (re)started learner first takes what is already filled
        mine, stale = exp.claim_filled(agent)
        ready: list[tuple[int, int, int]] = [(s, int(exp.version[s]), int(exp.battle[s])) for s in mine]
        queued = {s for s, _, _ in ready}
        if ready:
            log.info("%s: %d filled slots waiting from before its start", name, len(ready))
        if stale:
            log.info("%s: freed %d filled slots left by the lane's previous learner", name, stale)
        last_beat = 0.0
        t_last, samples_since = time.monotonic(), 0
        stop = False
        poller = zmq.Poller()
        poller.register(pull, zmq.POLLIN)
        poller.register(io.control, zmq.POLLIN)
        bs = cfg.learner.batch_size
        while not stop:
            for sock, _ in poller.poll(100):
                if sock is io.control:
                    for msg in io.commands():
                        if isinstance(msg, Stop):
                            stop = True
                        elif isinstance(msg, Counters):
                            counters.update(msg.counters)
                        elif isinstance(msg, SetPortfolio) and msg.to == name:
                            refs = [(mid, ckpt.load_policy_net(path)) for mid, path in msg.members]
                            L.set_portfolio(refs)
                            log.info("%s: portfolio %s", name, [mid for mid, _ in refs])
                            send(PortfolioAck([mid for mid, _ in refs]))
                        elif isinstance(msg, Reset) and msg.to == name and initial is not None:
                            L.reset(initial)
                            version = weights.publish(L.net, owner)
                            log.info("%s reset to its initial weights at update %d", name, L.steps)
                            send(ResetDone(L.steps, version))
                else:
                    while pull.poll(0):
                        m = msgpack.unpackb(pull.recv())
                        if m.get("agent", agent) != agent:  # for the lane's previous learner
                            continue
                        if exp.is_filled(m["slot"]) and m["slot"] not in queued:  # late duplicates: ignored
                            ready.append((m["slot"], m["version"], m.get("battle", 0)))
                            queued.add(m["slot"])
            if time.monotonic() - last_beat > 5.0:
                send(Heartbeat(L.steps))
                last_beat = time.monotonic()
                # a simulator killed between filling a slot and announcing it: take it anyway
                for s in exp.claim_filled(agent)[0]:
                    if s not in queued:
                        ready.append((s, int(exp.version[s]), int(exp.battle[s])))
                        queued.add(s)
            while len(ready) >= bs and not stop:
                take, ready = take_batch(ready, bs, cfg.learner.rnad.opponent_kl)
                slots = [s for s, _, _ in take]
                batch = exp.batch(slots)
                exp.release(slots)
                queued.difference_update(slots)
                metrics = L.step(batch)
                samples_since += metrics["samples"]
                if L.steps % cfg.learner.publish_every == 0:
                    version = weights.publish(L.net, owner)
                lag = float(np.mean([version - v for _, v, _ in take]))
                now = time.monotonic()
                metrics.update({"updates": L.steps, "policy_lag": lag, "weights_version": version,
                                "samples_per_s": samples_since / max(now - t_last, 1e-6)})
                t_last, samples_since = now, 0
                send(Update(metrics))
                if L.steps % cfg.learner.checkpoint_every == 0:
                    save("periodic")
                if max_updates and L.steps >= max_updates:
                    stop = True
        path = save("final")
        send(Final(path, L.steps))
    except Exception:
        send(Error(traceback.format_exc()))
        raise
    finally:
        io.close()
