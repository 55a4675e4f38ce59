"""Sample a league.run's per-role CPU counters and battle count every 60 s -> JSON lines."""
import json, sys, time
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository root
from tools.bench import cpu_by_role
run_dir, out_file, run_out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
roles = None
while True:
    pj = run_dir / "processes.json"
    if roles is None and pj.exists():
        try:
            r = json.loads(pj.read_text()); roles = {"python_main": r["main"], "learner": r["learner"], "python_simulator": r["simulator"]}
        except Exception: roles = None
    if roles:
        battles = updates = None
        for line in reversed(run_out.read_text().splitlines()):
            if "| battles" in line:
                battles = int(line.split("| battles")[1].split("|")[0]); updates = int(line.split("updates")[1].split("|")[0]); break
        c = cpu_by_role(roles)
        if not c: break
        with out_file.open("a") as f:
            f.write(json.dumps({"t": time.time(), "battles": battles, "updates": updates, "cpu": c}) + "\n")
    time.sleep(60)
