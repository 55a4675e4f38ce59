"""CPU use of a league run's processes by role, every PERIOD seconds, until killed:

    python experiments/gpu/cpu_sampler.py RUN_DIR [PERIOD]

Roles from RUN_DIR/processes.json (main, learner, shard K); a Node process whose parent
is a shard is that shard's worker (shardK.node); any other process above 5 % is
other:NAME. Each line: the time (UTC), all cores busy, then % of one core per role; the
next line the CPU-seconds per role so far (answers: are the shards and workers
saturated, what does the learner use)."""

from __future__ import annotations

import json
import sys
import time

import psutil


def main() -> None:
    run_dir = sys.argv[1]
    period = float(sys.argv[2]) if len(sys.argv) > 2 else 10.0
    seen: dict[int, psutil.Process] = {}
    total: dict[str, float] = {}
    psutil.cpu_percent(None)
    t_last = time.monotonic()
    while True:
        time.sleep(period)
        try:
            pids = json.load(open(f"{run_dir}/processes.json"))
        except (OSError, ValueError):
            pids = {}
        role = {pids.get("main"): "main", pids.get("learner"): "learner"}
        role.update({pid: f"shard{k}" for k, pid in enumerate(pids.get("shards") or [])})
        by: dict[str, float] = {}
        for p in psutil.process_iter(["pid", "ppid", "name"]):
            try:
                c = seen.setdefault(p.pid, p).cpu_percent(None)
            except psutil.Error:
                continue
            r = role.get(p.pid)
            if r is None and p.info["ppid"] in role and p.info["name"] == "node":
                r = role[p.info["ppid"]] + ".node"
            if r is None and c >= 5:
                r = "other:" + (p.info["name"] or "?")
            if r is not None:
                by[r] = by.get(r, 0.0) + c
        now = time.monotonic()
        for r, c in by.items():
            total[r] = total.get(r, 0.0) + c * (now - t_last) / 100
        t_last = now
        print(f"{time.strftime('%H:%M:%S', time.gmtime())} UTC all={psutil.cpu_percent(None):.0f}% of "
              f"{psutil.cpu_count()} cores | " + " ".join(f"{r}={c:.0f}" for r, c in sorted(by.items())), flush=True)
        print("  CPU-s so far: " + " ".join(f"{r}={c:.0f}" for r, c in sorted(total.items())), flush=True)


if __name__ == "__main__":
    main()
